/* The library's own machine code mapped before its first call. Internal. */
#ifndef CUSPEC_PREFAULT_H
#define CUSPEC_PREFAULT_H

/* Maps every page of this library's code into the process's page tables,
 * once per process (later calls return at once), so that a first call does
 * not stop on a page fault at each page of code it runs for the first time
 * (docs/experiments/deploy.md: "The first call's page faults"). Best effort:
 * a kernel without MADV_POPULATE_READ (before Linux 5.14) leaves the faults
 * where they were. Returns 1 when the pages are mapped, 0 when not. */
int cuspec__prefault_code(void);

#endif /* CUSPEC_PREFAULT_H */
