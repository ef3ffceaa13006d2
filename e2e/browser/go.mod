module github.com/mwallet/mwallet-go/e2e/browser

go 1.24.0

replace github.com/mwallet/mwallet-go => ../..

require (
	github.com/chromedp/chromedp v0.14.2
	github.com/mwallet/mwallet-go v0.1.0
)

require (
	github.com/chromedp/cdproto v0.0.0-20250724212937-08a3db8b4327 // indirect
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/cockroachdb/apd/v3 v3.2.3 // indirect
	github.com/go-json-experiment/json v0.0.0-20250725192818-e39067aee2d2 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/sys v0.34.0 // indirect
	golang.org/x/time v0.14.0 // indirect
)
