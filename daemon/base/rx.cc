// rx.cc: the RE2 side of rx.h.  No exception may cross into C: every
// entry point catches them (an allocation failure becomes a refused
// pattern or a non-match).
#include <re2/re2.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "rx.h"

struct rx {
	re2::RE2 re;

	rx(const std::string &pattern, const re2::RE2::Options &o) :
	    re(pattern, o) {}
};

static void
rx_why(char *why, size_t whylen, const char *msg)
{
	if (why != nullptr && whylen > 0)
		std::snprintf(why, whylen, "%s", msg);
}

extern "C" struct rx *
rx_new(const char *pattern, size_t n, int whole, char *why, size_t whylen)
{
	char msg[64];

	if (n > RX_MAX_PATTERN) {
		std::snprintf(msg, sizeof msg, "longer than %d bytes",
		    RX_MAX_PATTERN);
		rx_why(why, whylen, msg);
		return nullptr;
	}
	try {
		re2::RE2::Options o;
		std::string pat(pattern, n);

		// Go's syntax and semantics: UTF-8, Perl classes, leftmost
		// first; errors are ours to report, not RE2's to log.
		o.set_encoding(re2::RE2::Options::EncodingUTF8);
		o.set_max_mem(RX_MAX_MEM);
		o.set_log_errors(false);
		if (whole)
			pat = "^(" + pat + ")$";
		rx *r = new (std::nothrow) rx(pat, o);
		if (r == nullptr) {
			rx_why(why, whylen, "out of memory");
			return nullptr;
		}
		if (!r->re.ok()) {
			if (r->re.error_code() ==
			    re2::RE2::ErrorPatternTooLarge) {
				std::snprintf(msg, sizeof msg, "too large to "
				    "compile within %d MiB", RX_MAX_MEM >> 20);
				rx_why(why, whylen, msg);
			} else
				rx_why(why, whylen, r->re.error().c_str());
			delete r;
			return nullptr;
		}
		return r;
	} catch (...) {
		rx_why(why, whylen, "out of memory");
		return nullptr;
	}
}

extern "C" int
rx_match(const struct rx *r, const char *s, size_t n)
{
	try {
		return re2::RE2::PartialMatch(re2::StringPiece(s, n), r->re);
	} catch (...) {
		return 0;
	}
}

extern "C" void
rx_free(struct rx *r)
{
	delete r;
}
