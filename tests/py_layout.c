/* Prints the layout of the public structs that the Python binding mirrors
 * with ctypes (python/cuspec/_structs.py): "NAME SIZE" and "NAME.FIELD
 * OFFSET" lines, which python/tests/test_structs.py compares with the
 * mirrors. A size catches a field added here and not there. */
#include "cuspec.h"

#include <stddef.h>
#include <stdio.h>

#define SIZE(type) printf("%s %zu\n", #type, sizeof(type))
#define AT(type, field) printf("%s.%s %zu\n", #type, #field, offsetof(type, field))

int main(void)
{
    SIZE(cuspec_matrix);
    AT(cuspec_matrix, rows);
    AT(cuspec_matrix, cols);
    AT(cuspec_matrix, ld);
    AT(cuspec_matrix, batch);
    AT(cuspec_matrix, batch_stride);

    SIZE(cuspec_device_info);
    AT(cuspec_device_info, ordinal);
    AT(cuspec_device_info, name);
    AT(cuspec_device_info, sm_major);
    AT(cuspec_device_info, sm_minor);
    AT(cuspec_device_info, sm_count);
    AT(cuspec_device_info, total_mem);
    AT(cuspec_device_info, mem_bus_width);
    AT(cuspec_device_info, mem_clock_khz);
    AT(cuspec_device_info, peak_bandwidth);
    AT(cuspec_device_info, l2_bytes);
    AT(cuspec_device_info, max_threads_per_block);
    AT(cuspec_device_info, max_smem_per_block);
    AT(cuspec_device_info, driver_version);
    AT(cuspec_device_info, uuid);

    SIZE(cuspec_store_stats);
    AT(cuspec_store_stats, path);
    AT(cuspec_store_stats, system_path);
    AT(cuspec_store_stats, writable);
    AT(cuspec_store_stats, why_not_writable);
    AT(cuspec_store_stats, max_bytes);
    AT(cuspec_store_stats, entries);
    AT(cuspec_store_stats, bytes);
    AT(cuspec_store_stats, system_entries);
    AT(cuspec_store_stats, leftovers);
    AT(cuspec_store_stats, leftover_bytes);
    AT(cuspec_store_stats, quarantined);
    AT(cuspec_store_stats, hits);
    AT(cuspec_store_stats, misses);
    AT(cuspec_store_stats, compiles);
    AT(cuspec_store_stats, publishes);
    AT(cuspec_store_stats, bad_entries);
    AT(cuspec_store_stats, evictions);
    AT(cuspec_store_stats, write_failures);

    SIZE(cuspec_launch_info);
    AT(cuspec_launch_info, tier);
    AT(cuspec_launch_info, kernel);
    AT(cuspec_launch_info, fallback);
    AT(cuspec_launch_info, wanted);

    SIZE(cuspec_latency);
    AT(cuspec_latency, first_call_ms);
    AT(cuspec_latency, first_tier);
    AT(cuspec_latency, kernel);
    AT(cuspec_latency, raw_launch_us);
    AT(cuspec_latency, reduce_call_us);
    AT(cuspec_latency, copy_call_us);

    SIZE(cuspec_tune_spec);
    AT(cuspec_tune_spec, family);
    AT(cuspec_tune_spec, op);
    AT(cuspec_tune_spec, dtype);
    AT(cuspec_tune_spec, n);
    AT(cuspec_tune_spec, rows);
    AT(cuspec_tune_spec, cols);
    AT(cuspec_tune_spec, ld_in);
    AT(cuspec_tune_spec, ld_out);

    SIZE(cuspec_tune_progress);
    AT(cuspec_tune_progress, done);
    AT(cuspec_tune_progress, total);
    AT(cuspec_tune_progress, best_gbs);
    AT(cuspec_tune_progress, elapsed_s);
    AT(cuspec_tune_progress, what);

    SIZE(cuspec_tune_options);
    AT(cuspec_tune_options, budget_s);
    AT(cuspec_tune_options, max_candidates);
    AT(cuspec_tune_options, top);
    AT(cuspec_tune_options, reps);
    AT(cuspec_tune_options, force);
    AT(cuspec_tune_options, jobs);
    AT(cuspec_tune_options, compile_timeout_s);
    AT(cuspec_tune_options, stop);
    AT(cuspec_tune_options, progress);
    AT(cuspec_tune_options, user);

    SIZE(cuspec_tune_result);
    AT(cuspec_tune_result, kernel);
    AT(cuspec_tune_result, params);
    AT(cuspec_tune_result, median_us);
    AT(cuspec_tune_result, gbs);
    AT(cuspec_tune_result, spread);
    AT(cuspec_tune_result, default_us);
    AT(cuspec_tune_result, default_gbs);
    AT(cuspec_tune_result, candidates);
    AT(cuspec_tune_result, timed);
    AT(cuspec_tune_result, reused);
    AT(cuspec_tune_result, failed);
    AT(cuspec_tune_result, stopped);
    /* The reserved space the structs grow into. */
    AT(cuspec_device_info, reserved);
    AT(cuspec_store_stats, reserved);
    AT(cuspec_launch_info, reserved);
    AT(cuspec_latency, reserved);
    AT(cuspec_tune_spec, reserved);
    AT(cuspec_tune_options, reserved);
    AT(cuspec_tune_result, reserved);
    return 0;
}
