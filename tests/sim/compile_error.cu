/* Does not compile: the simulator must return the host compiler's log. */
extern "C" __global__ void broken(void) {
  int x = undeclared_name + ;
}
