package cards

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ControlDomains are the domains of the control arguments that name the line's objects (a card, its application, top-up, product and secure session) and a card's status,
// looked up in the line (the simulator's registry of domains merges them);
// at gives the line and the transaction of a run.
func ControlDomains[X any](at func(X) (*Line, *kernel.Tx)) map[string]*control.Domain[X] {
	return map[string]*control.Domain[X]{
		"card_status": control.OneOf[X]("card status", "frozen ", Statuses()...),
		"secure_session": control.ObjectOf("secure session", func(x X, id string) bool {
			l, tx := at(x)
			_, _, err := l.SecureSessionPage(tx, PathRequest(id), nil)
			return err == nil
		}),
		"card": control.ObjectOf("card", func(x X, id string) bool { l, tx := at(x); return l.HasCard(tx, WithIDPrefix("crd_", id)) }),
		"card_application": control.ObjectOf("card application", func(x X, id string) bool {
			l, tx := at(x)
			return l.FindApplication(tx, id) == nil
		}),
		"card_topup":   control.ObjectOf("card top-up", func(x X, id string) bool { l, tx := at(x); return l.FindTopUp(tx, id) == nil }),
		"card_product": control.ObjectOf("card product", func(x X, id string) bool { l, tx := at(x); return l.HasProduct(tx, id) }),
	}
}
