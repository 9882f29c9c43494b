// A class whose first virtual function nothing defines: its vtable, emitted with that function, is undefined (AMReX
// configured without the solver a test used). bxicxx links it; its ranks cannot load it.
struct Solver {
  virtual ~Solver() = default;
  virtual int solve();
};

int main()
{
  Solver* solver = new Solver;
  int result     = solver->solve();
  delete solver;
  return result;
}
