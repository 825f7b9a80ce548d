/* The shipped PTX (ptx/, embedded) matches the templates: every
 * specialization a call can choose without a record (ptx-list names them)
 * has a PTX made from the current template text, for every arch from its
 * target on. Fails when a template changed and `make ptx` was not run. */
#include "catalogue.h"
#include "image.h"
#include "template.h"
#include "tap.h"

static const int archs[] = {75, 80, 86, 89, 90, 100, 120};
static int missing;

static int check_one(const struct cuspec__variant *v, void *user)
{
    int arch = *(const int *)user;
    const char *hash, *ptx, *entry, *file = cuspec__variant_template(v);
    char name[256];
    cuspec__variant_name(v, name, sizeof name);
    CHECK(cuspec__template(file, &hash) != NULL);
    if (cuspec__shipped_ptx_find(name, hash, arch, &ptx, &entry) != CUSPEC_OK) {
        if (missing++ < 5)
            TAP_FAIL("no shipped PTX for %s from the current templates/%s: run `make ptx`", name,
                     file);
        return 0;
    }
    CHECK(strstr(ptx, ".version") != NULL);
    CHECK(strstr(ptx, entry) != NULL);
    /* made for compute_75: no GPU older than that runs it */
    CHECK_STR_CONTAINS(ptx, "\n.target sm_75\n");
    CHECK_INT_EQ(cuspec__shipped_ptx_find(name, hash, 70, &ptx, &entry), CUSPEC_ERR_NOT_FOUND);
    return 0;
}

TEST(every_default_has_current_ptx)
{
    missing = 0;
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
        for (int f = 0; f < CUSPEC__N_FAMILIES; f++)
            cuspec__family_each(f, archs[a], 0, check_one, (void *)&archs[a]);
    CHECK_INT_EQ(missing, 0);
}

#define MAX_DEFAULTS 1024
static char defaults[MAX_DEFAULTS][256];
static int n_defaults;

/* Each name once (the archs share most); a full table fails the test. */
static int remember(const struct cuspec__variant *v, void *user)
{
    char name[256];
    (void)user;
    cuspec__variant_name(v, name, sizeof name);
    for (int d = 0; d < n_defaults; d++)
        if (strcmp(defaults[d], name) == 0)
            return 0;
    CHECK_INT_LT(n_defaults, MAX_DEFAULTS);
    if (n_defaults < MAX_DEFAULTS)
        strcpy(defaults[n_defaults++], name);
    return 0;
}

TEST(every_shipped_file_is_a_default)
{
    /* A shipped file no default names is stale: `make ptx` removes it. */
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
        for (int f = 0; f < CUSPEC__N_FAMILIES; f++)
            cuspec__family_each(f, archs[a], 0, remember, NULL);
    CHECK(cuspec__shipped_ptx_count > 0);
    for (size_t i = 0; i < cuspec__shipped_ptx_count; i++) {
        const char *at = strstr(cuspec__shipped_ptx[i].text, "// name: ");
        CHECK(at != NULL);
        if (at == NULL)
            continue;
        at += strlen("// name: ");
        int found = 0;
        for (int d = 0; d < n_defaults && !found; d++) {
            size_t len = strlen(defaults[d]);
            found = strncmp(at, defaults[d], len) == 0 && at[len] == '\n';
        }
        if (!found)
            TAP_FAIL("ptx/%s is no default's PTX: run `make ptx`", cuspec__shipped_ptx[i].name);
    }
}

TAP_MAIN(TAP_ENTRY(every_default_has_current_ptx), TAP_ENTRY(every_shipped_file_is_a_default))
