/* Library B of the --privatize-lib test: a counter. */
static int counter;

int b_bump(void)
{
  return ++counter;
}

int b_value(void)
{
  return counter;
}
