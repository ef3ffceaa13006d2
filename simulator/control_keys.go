package simulator

// KeysControl creates and changes the merchant's API Keys (sim.Keys): scopes
// and their approval, signing, IP allowlist, environment, expiry. Control
// API: POST /_sim/keys and POST /_sim/keys/{client_id}.
type KeysControl struct{ s *Simulator }

// Add creates another Key of the merchant and returns its credentials.
// Empty clientID, apiKeyValue or signingKey are generated. The Key starts with the
// settings ks (SignatureRequired defaults to true, Environment to the current
// one; restricted scopes need ApproveRestricted).
func (k *KeysControl) Add(clientID, apiKeyValue, signingKey string, ks KeySettings) (Credentials, error) {
	return call2(k.s, "Keys.Add", func() (Credentials, error) { return k.s.addKey(clientID, apiKeyValue, signingKey, ks) }, clientID, apiKeyValue, signingKey, ks)
}

// Set changes the Key of clientID.
func (k *KeysControl) Set(clientID string, ks KeySettings) error {
	return call1(k.s, "Keys.Set", func() error { return k.s.setKey(clientID, ks) }, clientID, ks)
}
