/* fuzz_detect.c: format=auto, the importer's path for a push that names no
 * format: gunzip on the magic, detection on the first bytes, then the
 * detected decoder.  A sniffer that claims an input hands it to a decoder
 * that must then fail cleanly or decode it; and the sniffers must agree
 * with the table's order (the first that claims wins). */
#include "folded.h"
#include "fuzz.h"
#include "otlp.h"
#include "perf-script.h"
#include "perfetto.h"
#include "pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct error err = { 0 };
	const struct format *f;
	size_t head = size < FORMAT_SNIFF_BYTES ? size : FORMAT_SNIFF_BYTES;
	const char *want;

	want = pprof_sniff(data, head) ? "pprof" :
	    perfetto_sniff(data, head) ? "perfetto" :
	    otlp_sniff(data, head) ? "otlp" :
	    folded_sniff(data, head) ? "folded" :
	    perf_script_sniff(data, head) ? "perf-script" : NULL;
	f = format_detect(data, head, &err);
	FZ_CHECK((f == NULL) == (want == NULL));
	FZ_CHECK(f == NULL || strcmp(f->name, want) == 0);
	FZ_CHECK(f != NULL || err.kind == ERR_INPUT);
	return fz_decode_both(data, size, "auto");
}
