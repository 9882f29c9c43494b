/* A program without MPI. */
int main(void)
{
  return 0;
}
