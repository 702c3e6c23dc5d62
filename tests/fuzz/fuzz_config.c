/* fuzz_config.c: the config file parser (config_load), over a memfd so
 * no file is left behind.  Beside not crashing: an error names the file
 * and line; a file that loads prints (config_print, as --print-config
 * does) to a file that loads to the same settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int fd = -1;
static char path[64];

static void
put(const void *p, size_t n)
{
	FZ_CHECK(ftruncate(fd, 0) == 0);
	FZ_CHECK(pwrite(fd, p, n, 0) == (ssize_t)n);
}

/* The settings as printed, without the first line (it names the file). */
static char *
print(const struct config *c, size_t *len)
{
	char *out = NULL, *nl;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	FZ_CHECK(f != NULL);
	config_print(f, c);
	FZ_CHECK(fclose(f) == 0);
	nl = strchr(out, '\n');
	FZ_CHECK(nl != NULL);
	memmove(out, nl + 1, n - (size_t)(nl + 1 - out) + 1);
	*len = strlen(out);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config a, b;
	struct error err = { 0 };
	char *pa, *pb;
	size_t na, nb;

	if (fd == -1) {
		FZ_CHECK((fd = memfd_create("fuzz-config", 0)) >= 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (size > 16384)
		return -1;
	put(data, size);
	config_defaults(&a);
	if (config_load(&a, path, 1, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT);
		FZ_CHECK(strncmp(err.msg, path, strlen(path)) == 0);
		config_clear(&a);
		return 0;
	}
	pa = print(&a, &na);
	put(pa, na);
	config_defaults(&b);
	if (config_load(&b, path, 1, &err) == -1) {
		fprintf(stderr, "printed settings do not load: %s\n%s",
		    err.msg, pa);
		abort();
	}
	pb = print(&b, &nb);
	if (na != nb || memcmp(pa, pb, na) != 0) {
		fprintf(stderr, "printed settings load to others:\n%s---\n%s",
		    pa, pb);
		abort();
	}
	free(pa);
	free(pb);
	config_clear(&a);
	config_clear(&b);
	return 0;
}
