package emvqr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// BuildError reports a Payload that cannot be encoded.
type BuildError struct {
	Tag    string
	Detail string
}

// Error names the tag and what was wrong with it.
func (e *BuildError) Error() string { return "emvqr: build: tag " + e.Tag + ": " + e.Detail }

// Build encodes p and appends the CRC. It checks only what the encoding
// needs: two-digit IDs and values of at most 99 characters. Use it to write
// test payloads; Decode the result to check it against the rules.
func Build(p Payload) (string, error) {
	var b strings.Builder
	put := func(tag, value string) error {
		if len(tag) != 2 || !digits(tag) {
			return &BuildError{Tag: tag, Detail: "ID is not two digits"}
		}
		n := utf8.RuneCountInString(value)
		if n > 99 {
			return &BuildError{Tag: tag, Detail: fmt.Sprintf("value has %d characters, at most 99 fit", n)}
		}
		fmt.Fprintf(&b, "%s%02d%s", tag, n, value)
		return nil
	}
	template := func(fs []Field) (string, error) {
		var t strings.Builder
		for _, f := range fs {
			if len(f.Tag) != 2 || !digits(f.Tag) {
				return "", &BuildError{Tag: f.Tag, Detail: "sub-object ID is not two digits"}
			}
			n := utf8.RuneCountInString(f.Value)
			if n > 99 {
				return "", &BuildError{Tag: f.Tag, Detail: "sub-object value longer than 99 characters"}
			}
			fmt.Fprintf(&t, "%s%02d%s", f.Tag, n, f.Value)
		}
		return t.String(), nil
	}
	optional := func(tag, v string) error {
		if v == "" {
			return nil
		}
		return put(tag, v)
	}
	fi := p.FormatIndicator
	if fi == "" {
		fi = "01"
	}
	if err := put("00", fi); err != nil {
		return "", err
	}
	if err := optional("01", p.PointOfInitiation); err != nil {
		return "", err
	}
	for _, ma := range p.MerchantAccounts {
		v := ma.Value
		if ma.Tag >= "26" && ma.Tag <= "51" {
			fs := ma.Fields
			if ma.GUI != "" {
				fs = append([]Field{{Tag: "00", Value: ma.GUI}}, ma.Fields...)
			}
			var err error
			if v, err = template(fs); err != nil {
				return "", err
			}
		}
		if err := put(ma.Tag, v); err != nil {
			return "", err
		}
	}
	for _, f := range []Field{
		{"52", p.MerchantCategoryCode}, {"53", p.Currency}, {"54", p.Amount}, {"55", p.TipIndicator},
		{"56", p.ConvenienceFeeFixed}, {"57", p.ConvenienceFeePercent}, {"58", p.Country},
		{"59", p.MerchantName}, {"60", p.MerchantCity}, {"61", p.PostalCode},
	} {
		if err := optional(f.Tag, f.Value); err != nil {
			return "", err
		}
	}
	for _, t := range []struct {
		tag string
		fs  []Field
	}{{"62", p.AdditionalData}, {"64", p.Language}} {
		if len(t.fs) == 0 {
			continue
		}
		v, err := template(t.fs)
		if err != nil {
			return "", err
		}
		if err := put(t.tag, v); err != nil {
			return "", err
		}
	}
	for _, f := range p.Extra {
		if err := put(f.Tag, f.Value); err != nil {
			return "", err
		}
	}
	b.WriteString("6304")
	s := b.String()
	return s + crcText(CRC16([]byte(s))), nil
}

// MustBuild is Build for tests and examples with constant payloads: it panics
// when p cannot be encoded.
func MustBuild(p Payload) string {
	s, err := Build(p)
	if err != nil {
		panic(err)
	}
	return s
}
