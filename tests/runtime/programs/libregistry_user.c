/* A plain library between the program and libregistry (p4est's library over libsc's): it calls no MPI itself, but its
 * calls must reach the rank's own copy of libregistry, so it needs a copy per rank too. */
int registry_enter(void);

int registry_user_enter(void)
{
  return registry_enter();
}
