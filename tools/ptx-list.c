/* ptx-list: prints "TEMPLATE<TAB>NAME<TAB>HASH" for every default
 * specialization on the archs cuspec ships PTX for; tools/regen-ptx.sh makes
 * one PTX file of each. */
#include "catalogue.h"
#include "image.h"
#include "template.h"

#include <stdio.h>

/* The archs whose defaults are shipped: every arch the defaults may differ on. */
static const int archs[] = {75, 80, 86, 89, 90, 100, 120};

static int print(const struct cuspec__variant *v, void *user)
{
    (void)user;
    const char *hash;
    const struct cuspec__file *t = cuspec__template(cuspec__variant_template(v), &hash);
    char name[256];
    cuspec__variant_name(v, name, sizeof name);
    printf("%s\t%s\t%s\n", t ? t->name : "?", name, hash);
    return 0;
}

int main(void)
{
    for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
        for (int f = 0; f < CUSPEC__N_FAMILIES; f++)
            cuspec__family_each(f, archs[a], 0, print, NULL);
    return 0;
}
