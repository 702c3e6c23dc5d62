/* bounds.c: the default limits for pushed blobs. */
#include "bounds.h"

void
bounds_default(struct limits *l)
{
	l->max_body = 256u << 20;		/* 256 MiB on the wire */
	l->max_inflated = 1024u << 20;		/* 1 GiB inflated */
	l->max_inflate_ratio = 1000;
	l->max_json = 16u << 20;		/* 16 MiB of JSON text */
	l->max_stack_depth = 4096;
	l->max_strings = 16u << 20;
	l->max_string_len = 1u << 20;
	l->max_upload = 64ull << 30;		/* 64 GiB */
	l->no_quote = 0;
}
