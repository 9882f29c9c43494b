/* Calls a function nothing defines: bxicc links programs as shared objects, so this only shows at load. */
void bxisim_test_function_nothing_defines(void);

int main(void)
{
  bxisim_test_function_nothing_defines();
  return 0;
}
