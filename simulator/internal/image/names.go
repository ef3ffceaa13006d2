package image

import (
	"path"
	"reflect"
	"strings"
	"unicode"
)

// The image names the types and fields it walks as the builds that wrote
// recordings of versions 1 and 2 named them: the names are part of the
// rules (Rules.Skip, the digest's leaves, FieldsSince) and of a dump. The
// fields of the projection's types are exported (the image is written by
// reflection, which reads only exported fields), but the fields of the
// types they stand for were not: the naming rule gives the old names, with
// two lists for what the rule cannot tell (Records, FieldNames).

// ownPkg is this package's import path; simPkg the simulator's.
var (
	ownPkg = reflect.TypeFor[Rules]().PkgPath()
	simPkg = strings.TrimSuffix(ownPkg, "/internal/image")
)

// ownType reports whether t is the simulator's: of the simulator package
// or of a package under its internal/ (this one, the kernel, the product
// lines), walked by its fields whatever methods it has.
func ownType(t reflect.Type) bool {
	return t.PkgPath() == simPkg || strings.HasPrefix(t.PkgPath(), simPkg+"/internal/")
}

// TypeName names a struct type in the image's field names: its name in
// the simulator package (and in this one, whose records stand for the
// simulator's), package.Name in a package under internal/ (a line's state
// types); a type of the projection is named as the type it stands for
// (LegacyName).
func (r *Rules) TypeName(t reflect.Type) string {
	if st, ok := r.StandIn(t); ok {
		return r.TypeName(st)
	}
	name := t.Name()
	if n, ok := r.LegacyName(t); ok {
		name = n
	}
	if t.PkgPath() == simPkg || t.PkgPath() == ownPkg || !ownType(t) {
		return name
	}
	return path.Base(t.PkgPath()) + "." + name
}

// StandIn returns the type t stands for, when t is one of Rules.StandIns.
func (r *Rules) StandIn(t reflect.Type) (reflect.Type, bool) {
	st, ok := r.StandIns[t]
	return st, ok
}

// LegacyName is the name the image of recordings of versions 1 and 2
// gives a type of the projection that stands for one of theirs, by the
// projection's naming rule: a line's Legacy stands for its Line, a type
// legacyX for x and LegacyX for X, an exported type X of this package
// (legacy.go) for x, one of Rules.StandIns for the type it stands for. ok
// is false for other types.
func (r *Rules) LegacyName(t reflect.Type) (string, bool) {
	if !ownType(t) {
		return "", false
	}
	if st, ok := r.StandIn(t); ok {
		return st.Name(), true
	}
	n := t.Name()
	switch {
	case t.PkgPath() == ownPkg && n != "" && unicode.IsUpper(rune(n[0])):
		return strings.ToLower(n[:1]) + n[1:], true
	case n == "Legacy":
		return "Line", true
	case strings.HasPrefix(n, "Legacy") && len(n) > len("Legacy"):
		return strings.TrimPrefix(n, "Legacy"), true
	case strings.HasPrefix(n, "legacy") && len(n) > len("legacy"):
		rest := strings.TrimPrefix(n, "legacy")
		return strings.ToLower(rest[:1]) + rest[1:], true
	}
	return "", false
}

// Records are the projection's types, by their name in the image, that
// stand for records whose fields were exported (an API key, a member, an
// order, a card...): their fields keep their names, but for their
// bookkeeping, listed in FieldNames. The fields of the other types of the
// projection (a line's state, the gateway's, a queue...) were all
// unexported.
var Records = map[string]bool{
	"apiKey":                true,
	"faultRule":             true,
	"api.Member":            true,
	"cards.cardApplication": true,
	"cards.cardProduct":     true,
	"cards.simCard":         true,
	"merchant.state":        true,
	"qrpay.order":           true,
	"qrpay.plan":            true,
	"remittances.order":     true,
	"webhooks.delivery":     true,
	"webhooks.endpoint":     true,
}

// FieldNames are the names the image of recordings of versions 1 and 2
// gives the fields that were unexported in a record (Records) or in a row
// type that the projection shares with it (renamed when they became rows).
var FieldNames = map[string]string{
	"faultRule.Remaining":          "remaining",
	"faultRule.Unlimited":          "unlimited",
	"cards.cardApplication.Seq":    "seq",
	"cards.simCard.Seq":            "seq",
	"cards.simCard.Txs":            "txs",
	"qrpay.order.Seq":              "seq",
	"qrpay.order.Member":           "member",
	"qrpay.order.From":             "from",
	"qrpay.order.Locked":           "locked",
	"remittances.order.Seq":        "seq",
	"webhooks.delivery.Seq":        "seq",
	"webhooks.delivery.RunLeft":    "runLeft",
	"webhooks.delivery.Redelivery": "redelivery",
	"webhooks.delivery.InFlight":   "inFlight",

	"kyc.Binding.Seq":          "seq",
	"remittances.payee.Seq":    "seq",
	"remittances.idem.Hash":    "hash",
	"remittances.idem.OrderID": "orderID",
	"remittances.idem.At":      "at",
	"cards.cardTopUp.Seq":      "seq",
	"cards.cardTx.Seq":         "seq",
}

// FieldName is the name the image gives the field sf of the struct type
// t: the name the type t stands for gave it. A field of a type of the
// projection (LegacyName) is named with its first letter lowered, but for
// the fields of records (Records), which keep their names; the fields of
// FieldNames are named there.
func (r *Rules) FieldName(t reflect.Type, sf reflect.StructField) string {
	typeName := r.TypeName(t)
	if old, ok := FieldNames[typeName+"."+sf.Name]; ok {
		return old
	}
	if _, ok := r.LegacyName(t); ok && !Records[typeName] {
		return strings.ToLower(sf.Name[:1]) + sf.Name[1:]
	}
	return sf.Name
}
