/* The hooks the builtin table's rows name (table.c): the typing hooks typeinfer defines and the
 * emitting hooks codegen defines, declared here, with the table, so that the table needs nothing
 * from the phases after it (the folders include one another in one direction, tests/layers.py);
 * typeinfer's infer.h and codegen's cg.h include this, so each definition is checked against its
 * declaration. */
#ifndef P2C_BUILTINS_HOOKS_H
#define P2C_BUILTINS_HOOKS_H

#include "builtins/builtins.h"

/* ---- the builtins' typing hooks (BuiltinInferFn), defined in src/typeinfer ----
 * Each types a call e of its row's builtin, t[1..] its argument types, after infer_call has
 * checked keywords and (unless BF_CHECKS_ARITY) the row's argument count. */
BuiltinInferFn infer_grid_call, infer_fixed_call, infer_shared_array_call, infer_local_array_call;
BuiltinInferFn infer_math_call, infer_np_elementwise_call, infer_ldexp_call, infer_math_split_call, infer_abs_call, infer_minmax_call;
BuiltinInferFn infer_cast_builtin_call, infer_round_call, infer_len_call, infer_tuple_call, infer_print_call;
BuiltinInferFn infer_loop_only_call, infer_isinstance_call;
BuiltinInferFn infer_complex_ctor_call, infer_cmath_call, infer_cmath_phase_call;   /* infer_complex.c */
BuiltinInferFn infer_cmath_polar_call, infer_cmath_rect_call;
BuiltinInferFn infer_fp16_call, infer_bf16_call, infer_fp8_cvt_call;                 /* infer_half.c */
BuiltinInferFn infer_isnat_call, infer_time_value_call;                              /* infer_time.c */
BuiltinInferFn infer_vector_ctor_call;                                             /* infer_vector.c */
BuiltinInferFn infer_atomic_call, infer_sync_predicate_call, infer_syncwarp_call;   /* infer_cuda.c */
BuiltinInferFn infer_nanosleep_call, infer_cache_hint_call;                         /* infer_cuda.c */
BuiltinInferFn infer_shfl_call, infer_vote_call, infer_match_call, infer_bitcount_call;
BuiltinInferFn infer_brev_call, infer_float_op_call, infer_selp_call, infer_const_array_like_call;
BuiltinInferFn infer_libdevice_call;
BuiltinInferFn infer_array_view_call, infer_array_reshape_call, infer_array_copy_call;   /* infer_view.c */
BuiltinInferFn infer_np_alloc_call;                                                 /* infer_alloc.c */
BuiltinInferFn infer_np_reduce_call;                                                /* infer_reduce.c */

/* ---- the builtins' emitting hooks (BuiltinEmitFn), defined in src/codegen ----
 * Each writes a call (or a value) e of its row's builtin; emit_expr has already marked the
 * row's prelude helpers as used. */
BuiltinEmitFn emit_spelled_value, emit_math_const_value, emit_grid_call;            /* emit_expr.c */
BuiltinEmitFn emit_math_call, emit_np_elementwise_call, emit_math_split_call, emit_minmax_call, emit_cast_builtin_call, emit_abs_call;
BuiltinEmitFn emit_round_call, emit_len_call, emit_tuple_call, emit_isinstance_call;
BuiltinEmitFn emit_complex_ctor_call, emit_cmath_call, emit_polar_call;             /* emit_complex.c */
BuiltinEmitFn emit_half_builtin_call;                                               /* emit_half.c */
BuiltinEmitFn emit_isnat_call;                                                      /* emit_time.c */
BuiltinEmitFn emit_vector_ctor_call;                                              /* emit_vector.c */
BuiltinEmitFn emit_plain_builtin_call, emit_shared_array_call, emit_atomic_call;    /* emit_cuda.c */
BuiltinEmitFn emit_warp_builtin_call, emit_syncwarp_call, emit_vote_call, emit_int32_warp_call;
BuiltinEmitFn emit_match_all_call, emit_bitcount_call, emit_brev_call, emit_selp_call;
BuiltinEmitFn emit_const_array_like_call, emit_libdevice_call, emit_cache_hint_call;
BuiltinEmitFn emit_array_view_call, emit_array_reshape_call;                                                /* emit_view.c */
BuiltinEmitFn emit_np_alloc_call;                                                   /* emit_alloc.c */
BuiltinEmitFn emit_np_reduce_call;                                                  /* emit_reduce.c */

#endif
