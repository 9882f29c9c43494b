// A thread the program creates lets a C++ exception out of its function: the rank crashes with a message.
#include <pthread.h>
#include <stdexcept>

static void* throw_out(void*)
{
  throw std::runtime_error("nobody catches this");
}

int main()
{
  pthread_t thread;
  pthread_create(&thread, nullptr, throw_out, nullptr);
  pthread_join(thread, nullptr);
  return 0;
}
