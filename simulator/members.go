package simulator

// registerMembers registers the members line's endpoints.
func (ctl *controlAPI) registerMembers() {
	s := ctl.sim
	for _, e := range s.st.members.Endpoints() {
		s.wiring.gw.router.Register(e)
	}
}
