package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/startup"

// sweepRules is the version of the rules this build runs every input under
// by default (startup.SweepRules); startup.Rules reads the rules the
// environment asks for (startup.RulesEnv).
const sweepRules = startup.SweepRules
