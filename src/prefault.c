/* Prefaulting the library's code: see prefault.h. */
#include "config.h"
#include "prefault.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef MADV_POPULATE_READ
/* The loaded object that holds this function's code: its executable
 * segments get their pages mapped. */
static int populate(struct dl_phdr_info *info, size_t size, void *self)
{
    (void)size;
    uintptr_t me = (uintptr_t)self, page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && me >= start && me - start < p->p_memsz) {
            for (int j = 0; j < info->dlpi_phnum; j++) {
                p = &info->dlpi_phdr[j];
                if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
                    continue;
                start = (info->dlpi_addr + p->p_vaddr) & ~(page - 1);
                uintptr_t end = info->dlpi_addr + p->p_vaddr + p->p_memsz;
                if (madvise((void *)start, end - start, MADV_POPULATE_READ) != 0)
                    return -1;
            }
            return 1;
        }
    }
    return 0;
}

static int done;

static void prefault(void)
{
    done = dl_iterate_phdr(populate, (void *)(uintptr_t)&populate) == 1;
}

int cuspec__prefault_code(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, prefault);
    return done;
}
#else
int cuspec__prefault_code(void)
{
    return 0;
}
#endif
