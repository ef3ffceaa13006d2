package simulator_test

import (
	"errors"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestNewHandlerRefusesServerOptions: the options that shape the server New
// starts cannot be honoured by a handler its caller serves; NewHandler
// refuses them with an error wrapping ErrServerOption instead of ignoring
// them, while New honours them and NewHandler takes every other option.
func TestNewHandlerRefusesServerOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     simulator.Option
		refused bool
	}{
		{"WithTLS", simulator.WithTLS(), true},
		{"WithHTTP2", simulator.WithHTTP2(), true},
		{"WithSeed", simulator.WithSeed(7), false},
		{"WithModel", simulator.WithModel(simulator.MerchantHosted), false},
		{"WithEnvironment", simulator.WithEnvironment(simulator.Production), false},
		{"WithoutFixtureMember", simulator.WithoutFixtureMember(), false},
		{"WithRecordingLimit", simulator.WithRecordingLimit(1 << 20), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, err := simulator.NewHandler(tt.opt)
			if !tt.refused {
				if err != nil {
					t.Fatalf("NewHandler(%s) = %v", tt.name, err)
				}
				sim.Close()
				return
			}
			if !errors.Is(err, simulator.ErrServerOption) || sim != nil {
				t.Fatalf("NewHandler(%s) = %v, %v; want nil and an error wrapping ErrServerOption", tt.name, sim, err)
			}
			served, err := simulator.New(tt.opt)
			if err != nil {
				t.Fatalf("New(%s) = %v", tt.name, err)
			}
			defer served.Close()
			if served.Certificate() == nil {
				t.Errorf("New(%s) serves without TLS", tt.name)
			}
		})
	}
}
