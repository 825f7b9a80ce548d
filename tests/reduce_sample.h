/* The whole-array reduce kernels a GPU test runs, compiled before its cases
 * (t_gpu_reduce: the first types and ops, t_gpu_reduce_types: the others).
 * Include after gpu.h, gpu_cases.h and compile.h. */
#ifndef CUSPEC_TEST_REDUCE_SAMPLE_H
#define CUSPEC_TEST_REDUCE_SAMPLE_H

/* Into *sample: about `count` of the legal first-stage specializations that
 * `ours` accepts, evenly spread over their enumeration (dtype, op, block,
 * items, vec, single), each given the next GRID value and its loads
 * streamed or through L1 in turn; then the defaults (what the public calls
 * use) that `ours` accepts. Compiles them, in parallel, with the second
 * stage of two-launch ones, so that later calls only load from the store.
 * Failures are the caller's test point's. Returns how many of *sample's
 * first entries are the spread ones (the defaults follow). */
static size_t reduce_sample_compile(int (*ours)(const struct cuspec__variant *v), size_t count,
                                    struct vlist *sample)
{
    const struct cuspec__family *f = &cuspec__family_reduce;
    int p_single = param_index(f, "single"), p_grid = param_index(f, "grid");
    int p_cache = param_index(f, "cache"), p_stage = param_index(f, "stage");
    if (p_single < 0 || p_grid < 0 || p_stage < 0 || p_cache < 0) {
        TAP_FAIL("the reduce family lacks one of single, grid, stage, cache");
        return 0;
    }
    struct vlist all = {0}, first = {0}, build = {0}, defaults = {0};
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_REDUCE, ctx->arch, 1, collect, &all), 0);
    for (size_t i = 0; i < all.n; i++)
        if (all.v[i].p[p_stage] == 0 && ours(&all.v[i]))
            CHECK(vlist_add(&first, &all.v[i]) == 0);
    const struct cuspec__param *grid = &f->params[p_grid];
    size_t step = first.n / count > 0 ? first.n / count : 1, k = 0;
    for (size_t i = step / 2; i < first.n; i += step, k++) {
        struct cuspec__variant v = first.v[i];
        v.p[p_grid] = grid->values[k % (size_t)grid->n];
        v.p[p_cache] = (int)(k / 2 % 2);
        CHECK(vlist_add(sample, &v) == 0);
    }
    const size_t spread = sample->n;
    CHECK(spread >= count);
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_REDUCE, ctx->arch, 0, collect, &defaults), 0);
    for (size_t i = 0; i < defaults.n; i++) /* not the final passes they list */
        if (defaults.v[i].p[p_stage] == 0 && ours(&defaults.v[i]))
            CHECK(vlist_add(sample, &defaults.v[i]) == 0);
    printf("# %zu legal reduce specializations, %zu of these tests' first stage, %zu sampled with "
           "the defaults\n",
           all.n, first.n, sample->n);

    /* GRID and CACHE are launch parameters: one kernel serves them all. A
     * two-launch one's final pass: the family's helper. */
    for (size_t i = 0; i < sample->n; i++) {
        struct cuspec__variant v = sample->v[i], h;
        v.p[p_grid] = v.p[p_cache] = 0;
        CHECK(vlist_add(&build, &v) == 0);
        if (f->helper(&v, &h)) {
            CHECK(v.p[p_single] == 0 && h.p[p_stage] == 1 && f->legal(&h));
            CHECK(vlist_add(&build, &h) == 0);
        }
    }
    cuspec_compile_report report;
    int rc = cuspec__compile_many(build.v, (unsigned)build.n, ctx->arch, CUSPEC__IMAGE_NO_PTX, 0, 0,
                                  NULL, NULL, NULL, &report);
    printf("# %u kernels compiled, %u found, %u failed in %.1f s\n", report.compiled, report.found,
           report.failed, report.seconds);
    if (rc != CUSPEC_OK)
        CASE_FAIL("compiling: %s: %s", cuspec_strerror(rc), report.first_error);
    free(all.v);
    free(first.v);
    free(build.v);
    free(defaults.v);
    return spread;
}

#endif
