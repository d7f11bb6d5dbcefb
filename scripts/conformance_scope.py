"""Which of Numba's CUDA tests are out of scope for pyk2cuda's conformance "as on a GPU"
(issue 28), and why. scripts/conformance.py --as-gpu reads it.

The rule (docs/conformance.md, "As on a GPU"): a test is out of scope only if it inspects Numba's
own compiler internals (its IR and typing objects, LLVM or NVVM IR text, NVVM options), uses
Numba's extension API (numba.core.extending: @overload, @intrinsic, @lower, typing templates), or
needs hardware a CPU cannot stand in for. Everything a user can observe (results, exceptions,
warnings, the PTX that inspect_asm returns) is in scope. Each entry names a test, a test class
or a module (ids without the package: test_x.TestClass.test_y), with its reason; the longest
matching entry wins."""

LLVM = "inspects the LLVM or NVVM IR Numba generates (its text, metadata or NVVM options)"
TYPING = "inspects Numba's typing or IR objects"
EXTENDING = "uses Numba's extension API (numba.core.extending / its typing and lowering templates)"
HARDWARE = "needs hardware a CPU cannot stand in for"

DUMPS = ("reads Numba's NUMBA_DUMP_* developer dumps of its own pipeline (bytecode, CFG, Numba "
         "IR, LLVM IR, its assembly dump's format)")
NC_COMPILER = "inspects numba-cuda's own compiler, not what a kernel does"
CODELIB = "inspects Numba's compile-result and code-library objects (fndesc, _codelibrary, CUDACodeLibrary)"

OUT_OF_SCOPE = {
    "test_debug.TestDebugOutput": DUMPS,
    "test_debuginfo.TestCudaDebugInfo.test_wrapper_has_debuginfo": LLVM,
    "test_inspect.TestInspect.test_monotyped": LLVM + ", beside inspect_asm",
    "test_inspect.TestInspect.test_polytyped": LLVM + ", beside inspect_asm",
    "test_device_func.TestDeviceFunc.test_inspect_llvm": LLVM,
    "test_device_func.TestDeviceFunc.test_inspect_asm": CODELIB,
    "test_const_string.TestConstStringCodegen": LLVM + " (llvmlite IR through NVVM's llvm_to_ptx)",
    "test_cooperative_groups.TestCudaCooperativeGroups.test_false_cooperative_doesnt_link_cudadevrt":
        CODELIB,
    "test_caching.TestCUDACodeLibrary": CODELIB,
    "test_extending": EXTENDING,
    "test_overload": EXTENDING + " (@overload for the CUDA target)",
    # Numba's typemap of a compiled overload (_type_annotation.typemap), or a type made with
    # the extension API (extensions_usecases: a StructModel, @lower, typeof_impl).
    "test_localmem.TestCudaLocalMem.test_numba_dtype": TYPING,
    "test_localmem.TestCudaLocalMem.test_numpy_dtype": TYPING,
    "test_localmem.TestCudaLocalMem.test_string_dtype": TYPING,
    "test_localmem.TestCudaLocalMem.test_type_with_struct_data_model": EXTENDING,
    "test_localmem.TestCudaLocalMem.test_struct_model_type_arr": EXTENDING,
    "test_sm_creation.TestSharedMemoryCreation.test_numba_dtype": TYPING,
    "test_sm_creation.TestSharedMemoryCreation.test_numpy_dtype": TYPING,
    "test_sm_creation.TestSharedMemoryCreation.test_string_dtype": TYPING,
    "test_sm_creation.TestSharedMemoryCreation.test_type_with_struct_data_model": EXTENDING,
    "test_sm.TestSharedMemory.test_struct_model_type_static": EXTENDING,
    # numba-cuda's suite only (its modules of these names are not in Debian's): tests of
    # numba-cuda's own compiler, none of which compiles a kernel to check what it does, or of
    # its extension API. numba-cuda 0.30.4.
    "test_analysis": NC_COMPILER + " (dead-branch pruning and liveness on its IR)",
    "test_byteflow": NC_COMPILER + " (bytecode flow analysis)",
    "test_copy_propagate": NC_COMPILER + " (copy propagation on its IR)",
    "test_flow_control": NC_COMPILER + " (control-flow graphs of its IR)",
    "test_ir": NC_COMPILER + " (its IR's nodes)",
    "test_ir_utils": NC_COMPILER + " (its IR utilities)",
    "test_tracing": NC_COMPILER + " (its event tracing)",
    "test_typeconv": NC_COMPILER + " (its type-conversion rules' tables)",
    "test_typeinfer": NC_COMPILER + " (its type-inference engine's objects)",
    "test_extending_types": EXTENDING,
    "test_launch_config_sensitive": EXTENDING + " (a compiler rewrite registered with register_rewrite)",
    "test_ssa.TestReportedSSAIssues.test_issue3976": EXTENDING + " (@overload)",
    "test_ssa.TestReportedSSAIssues.test_issue5219": EXTENDING + " (@overload)",
    "test_make_function_to_jit_function.TestMakeFunctionToJITFunction.test_with_overload":
        EXTENDING + " (@overload)",
    "test_make_function_to_jit_function.TestMakeFunctionToJITFunction.test_basic_apply_like_case":
        EXTENDING + " (@overload)",
}

# Tests the harness cannot run, whatever pyk2cuda does: each counts as a miss with its reason,
# and is not started (it would hang the module's process until its timeout).
NOT_RUNNABLE = {
    "test_multithreads.TestMultiThreadCompiling.test_spawn_concurrent_compilation":
        "harness: a child started with multiprocessing's 'spawn' imports the test's module by "
        "name, and the shim's private package does not exist in the child (the parent waits "
        "forever on its queue)",
    "test_caching.TestMultiprocessCache.test_multiprocessing":
        "harness: its multiprocessing 'spawn' pool's initializer is the test module's "
        "child_initializer, which a child unpickles by the module's name, and the shim's private "
        "package does not exist in the child (the pool's children die at start and the parent "
        "waits forever)",
}


def out_of_scope(test_id):
    """The reason `test_id` is out of scope, or "" when it is in scope."""
    parts = test_id.split(".")
    for n in range(len(parts), 0, -1):
        why = OUT_OF_SCOPE.get(".".join(parts[:n]))
        if why:
            return why
    return ""
