/* Element values on the CPU, of any dtype, for the references benchmarks
 * and tuning check results against. Internal. */
#ifndef CUSPEC_DTYPE_VALUES_H
#define CUSPEC_DTYPE_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* f32, f64, f16 and bf16. */
int cuspec__dtype_is_float(int dtype);
/* u8, u16, u32 and u64. */
int cuspec__dtype_is_unsigned(int dtype);
/* Float element i of x as a double (exact: every f16, bf16 and f32 is one). */
double cuspec__value_f(const void *x, int dtype, size_t i);
/* Integer element i of x widened to 64 bits as kernels widen it (signed
 * ones sign-extended). */
uint64_t cuspec__value_i(const void *x, int dtype, size_t i);
/* The dtype sums and dots of dtype write: integers 64 bits of their
 * signedness, f16 and bf16 f32, the others their own. */
int cuspec__sum_dtype(int dtype);

#endif /* CUSPEC_DTYPE_VALUES_H */
