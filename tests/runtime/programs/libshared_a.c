/* Library A of the --privatize-lib test: bumps B's counter, so A must reach its rank's copy of B. */
int b_bump(void);

int a_bump(void)
{
  return b_bump();
}
