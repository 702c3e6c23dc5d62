/* hex.h: the value of one hexadecimal digit, as the parsers of outside
 * text (label selectors' escapes, ClickHouse's TabSeparated escapes)
 * read them. */
#ifndef PROFD_HEX_H
#define PROFD_HEX_H

/* 0-15, or -1 if c is not a hexadecimal digit. */
static inline int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
