package provider

import "strings"

// ModelBase is a model's name without the suffix vendors append for one
// of its versions: -latest, a date -YYYYMMDD or -YYYY-MM-DD, or -MMDD
// ("gpt-4-0613"). Any other name is returned as it is. Tables keyed by
// model (prices, context windows) look a name up as given, then by its
// base, so that a dated snapshot finds its model's entry and nothing is
// matched by guesswork.
func ModelBase(name string) string {
	head, tail, ok := cutLast(name, '-')
	switch {
	case !ok || head == "":
		return name
	case tail == "latest", isDate(tail):
		return head
	}
	if rest, month, ok := cutLast(head, '-'); ok && len(tail) == 2 && len(month) == 2 {
		if base, year, ok := cutLast(rest, '-'); ok && base != "" && len(year) == 4 && isDate(year+month+tail) {
			return base // -YYYY-MM-DD
		}
	}
	return name
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	if i := strings.LastIndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// isDate reports whether s is YYYYMMDD or MMDD, with a month of 01 to 12
// and a day of 01 to 31.
func isDate(s string) bool {
	if len(s) != 8 && len(s) != 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	md := s[len(s)-4:]
	month := int(md[0]-'0')*10 + int(md[1]-'0')
	day := int(md[2]-'0')*10 + int(md[3]-'0')
	return month >= 1 && month <= 12 && day >= 1 && day <= 31
}
