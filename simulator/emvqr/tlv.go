package emvqr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

func lookup(fs []Field, tag string) (string, bool) {
	for _, f := range fs {
		if f.Tag == tag {
			return f.Value, true
		}
	}
	return "", false
}

// tlv is one parsed data object with its character offset.
type tlv struct {
	tag    string
	value  string
	offset int // character offset of the ID
}

// splitTLV parses s into data objects. base is the character offset of s
// inside the payload, for error reporting; where names the template.
func splitTLV(s string, base int, where string) ([]tlv, error) {
	var out []tlv
	pos := 0 // character offset inside s
	i := 0   // byte index inside s
	for i < len(s) {
		start := pos
		if len(s)-i < 4 {
			return nil, &DecodeError{Tag: where, Offset: base + start, Err: ErrTruncated, Detail: "ID and length need four characters"}
		}
		id, ln := s[i:i+2], s[i+2:i+4]
		if !digits(id) {
			return nil, &DecodeError{Tag: where, Offset: base + start, Err: ErrSyntax, Detail: fmt.Sprintf("ID %q is not two digits", id)}
		}
		if !digits(ln) {
			return nil, &DecodeError{Tag: joinTag(where, id), Offset: base + start + 2, Err: ErrSyntax, Detail: fmt.Sprintf("length %q is not two digits", ln)}
		}
		n, _ := strconv.Atoi(ln)
		i += 4
		pos += 4
		vStart := i
		for k := 0; k < n; k++ {
			if i >= len(s) {
				return nil, &DecodeError{Tag: joinTag(where, id), Offset: base + start, Err: ErrTruncated, Detail: fmt.Sprintf("length %d runs past the end", n)}
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			pos++
		}
		out = append(out, tlv{tag: id, value: s[vStart:i], offset: base + start})
	}
	return out, nil
}

// tagNumber returns the value of a two-digit ID (splitTLV checked the digits).
func tagNumber(tag string) int { return int(tag[0]-'0')*10 + int(tag[1]-'0') }

func joinTag(where, id string) string {
	if where == "" {
		return id
	}
	return where + "." + id
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isAmount reports a plain decimal: digits with at most one dot that has
// digits on both sides ("23.72", "100", "1.5").
func isAmount(s string) bool {
	if len(s) == 0 || len(s) > 13 {
		return false
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if !digits(intPart) {
		return false
	}
	return !hasDot || digits(frac)
}

// zeroAmount reports a plain decimal whose value is zero ("0", "0.00").
func zeroAmount(s string) bool {
	return isAmount(s) && strings.Trim(s, "0.") == ""
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func decodeTemplate(o tlv) ([]Field, error) {
	subs, err := splitTLV(o.value, o.offset+4, o.tag)
	if err != nil {
		return nil, err
	}
	out := make([]Field, 0, len(subs))
	var seen [100]bool
	for _, sub := range subs {
		n := tagNumber(sub.tag)
		if seen[n] {
			return nil, &DecodeError{Tag: o.tag + "." + sub.tag, Offset: sub.offset, Err: ErrDuplicate}
		}
		seen[n] = true
		out = append(out, Field{Tag: sub.tag, Value: sub.value})
	}
	return out, nil
}

func decodeAccount(o tlv) (MerchantAccount, error) {
	subs, err := decodeTemplate(o)
	if err != nil {
		return MerchantAccount{}, err
	}
	ma := MerchantAccount{Tag: o.tag}
	for _, f := range subs {
		if f.Tag == "00" {
			ma.GUI = f.Value
			continue
		}
		ma.Fields = append(ma.Fields, f)
	}
	if ma.GUI == "" {
		return MerchantAccount{}, &DecodeError{Tag: o.tag + ".00", Offset: o.offset, Err: ErrMissing, Detail: "merchant account template without globally unique identifier"}
	}
	return ma, nil
}
