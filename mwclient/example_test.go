package mwclient_test

import (
	"context"
	"fmt"
	"log"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
)

// New takes the base URL of the environment, the Key's three values and the
// root client's options, and wires every product line.
func ExampleNew() {
	client, err := mwclient.New("https://api.example.com", mwallet.Credentials{
		ClientID:   "client-1",
		APIKey:     mwallet.Secret("api-key-value"),
		SigningKey: mwallet.Secret("signing-key-value"),
	}, mwallet.WithDefaultAttemptTimeout(10*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL()) // promoted from the root client
	fmt.Println(client)           // no credentials
	// Output:
	// https://api.example.com
	// mwallet.Client{base_url:https://api.example.com client_id:client-1}
}

// The product lines and the root methods read from one value.
func ExampleClient() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client() // an *mwclient.Client wired to the simulator
	ctx := context.Background()

	assets, err := client.Assets(ctx) // root method
	if err != nil {
		log.Fatal(err)
	}
	for s, err := range client.QRPay.Schemes(ctx) { // product line
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(assets.Assets) > 0, s.ID != "")
		break
	}
	// A program that needs one line only builds it from the root client.
	qr := qrpay.New(client.Client)
	_, err = qr.Decode(ctx, "member-1", qrpay.DecodeParams{CodeValue: "not a QR code"})
	fmt.Println(mwallet.CodeOf(err))
	// Output:
	// true true
	// qr_code_invalid
}
