// Programmatic dependent launch for NVRTC, which declares neither
// cudaGridDependencySynchronize nor cudaTriggerProgrammaticLaunchCompletion:
// the PTX they compile to. Below sm_90 they compile to nothing (graphbench
// offers no PDL rungs there). A source gets these with
//     #include "graphbench_pdl.cuh"
// which graphbench expands itself before compiling, so the compile cache's
// key covers this text too.
//   GRID_DEPENDENCY_WAIT(): wait until the previous kernel in the stream has
//     finished and its writes are visible. Call it before reading anything a
//     previous kernel wrote, and before writing anything it may still read.
//   TRIGGER_DEPENDENTS(): let the next kernel launch now (it still waits at
//     its own GRID_DEPENDENCY_WAIT).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GRID_DEPENDENCY_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define TRIGGER_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#else
#define GRID_DEPENDENCY_WAIT()
#define TRIGGER_DEPENDENTS()
#endif

