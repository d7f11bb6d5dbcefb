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

# numba-cuda's suite only: tests whose names Debian's suite shares but whose numba-cuda versions
# read the LLVM IR (Kernel.inspect_llvm: DWARF metadata such as !DICompileUnit and !DISubprogram,
# alloca alignment, nvvm intrinsic calls), directly or through a helper of their class
# (test_lineinfo's _check, test_debuginfo's _check_* helpers). Debian's test_lineinfo
# test_lineinfo_in_asm and test_no_lineinfo_in_asm read only the PTX, and stay in scope there.
# Found by walking each test method's calls to self.* helpers for inspect_llvm (numba-cuda 0.30.4).
OUT_OF_SCOPE_BY_SUITE = {"numba-cuda": {
    "test_compiler.TestCompile.test_numba_abi_has_env_global":
        NC_COMPILER + " (the NumbaEnv global of its own calling convention in the PTX)",
    "test_compiler.TestCompile.test_compile_jitted_subroutine": EXTENDING + " (@intrinsic)",
    "test_compiler.TestCompile.test_compile_cabi_calling_overloaded_function": EXTENDING + " (@overload)",
    # numba-cuda's own modules and classes that Debian's suite does not have.
    "test_numba_interop": EXTENDING + " (@overload of numba.extending, target='cuda')",
    "test_enums.EnumTest.test_int_enum_no_conversion": TYPING + " (the typing context's can_convert)",
    "test_caching.LaunchConfigSensitiveCachingTest": EXTENDING + " (a compiler rewrite registered with "
                                                     "register_rewrite, cache_launch_config_sensitive_usecases)",
    "test_array_alignment.TestArrayAddressAlignment.test_array_alignment_1d": LLVM,
    "test_array_alignment.TestArrayAddressAlignment.test_array_alignment_2d": LLVM,
    "test_array_alignment.TestArrayAddressAlignment.test_array_alignment_3d": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_issue_9888": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_bool_type": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_scalar_kernel_parameters_use_dbg_declare": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_grid_group_type": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_kernel_args_types": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_kernel_args_types_dump": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_kernel_args_names": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_llvm_dbg_value": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_llvm_dbg_value_range": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_llvm_dbg_value_loadvar_coverage": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_no_user_var_alias": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_no_literal_type": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_union_poly_types": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_poly_variant_part": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_DW_LANG": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_DILocation": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_no_if_op_bools_declared": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_llvm_inliner_flag_conflict": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_DILocation_versioned_variables": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_shared_memory_address_class_int32": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_shared_memory_address_class_complex64": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_shared_memory_address_class_boolean": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_shared_memory_address_class_float16": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_shared_memory_address_class_record": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_DISubprogram_def_line_number": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_prologue_line_number": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_bool_param_ref_only": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_terminator_line_number": LLVM,
    "test_debuginfo.TestCudaDebugInfo.test_arg_load_has_dbg_location": LLVM,
    "test_debuginfo_types.TestCudaDebugInfoTypes.test_ditypes": LLVM,
    "test_inline.TestCudaInline.test_call_inline_always": LLVM,
    "test_inline.TestCudaInline.test_call_inline_never": LLVM,
    "test_inline.TestCudaInline.test_call_inline_true": LLVM,
    "test_inline.TestCudaInline.test_call_inline_false": LLVM,
    "test_inline.TestCudaInline.test_call_inline_costmodel_false": LLVM,
    "test_inline.TestCudaInline.test_call_inline_costmodel_true": LLVM,
    "test_inline.TestCudaInline.test_call_forceinline_true": LLVM,
    "test_inline.TestCudaInline.test_call_forceinline_false": LLVM,
    "test_lineinfo.TestCudaLineInfo.test_no_lineinfo_in_asm": LLVM,
    "test_lineinfo.TestCudaLineInfo.test_lineinfo_in_asm": LLVM,
    "test_lineinfo.TestCudaLineInfo.test_lineinfo_maintains_error_model": LLVM,
    "test_lineinfo.TestCudaLineInfo.test_no_lineinfo_in_device_function": LLVM,
    "test_lineinfo.TestCudaLineInfo.test_lineinfo_in_device_function": LLVM,
    "test_warp_ops.TestCudaWarpOperations.test_shfl_sync_const_mode_val": LLVM,
    "test_warp_ops.TestCudaWarpOperations.test_vote_sync_const_mode_val": LLVM,
}}

# Tests the harness cannot run, whatever pyk2cuda does: each counts as a miss with its reason,
# and is not started (it would hang the module's process until its timeout).
NOT_RUNNABLE = {
}


def out_of_scope(test_id, suite="numba"):
    """The reason `test_id` of `suite` ("numba" or "numba-cuda") is out of scope, or "" when it
    is in scope."""
    table = dict(OUT_OF_SCOPE, **OUT_OF_SCOPE_BY_SUITE.get(suite, {}))
    parts = test_id.split(".")
    for n in range(len(parts), 0, -1):
        why = table.get(".".join(parts[:n]))
        if why:
            return why
    return ""
