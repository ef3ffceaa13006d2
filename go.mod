module github.com/mwallet/mwallet-go

go 1.24.0

require (
	github.com/cockroachdb/apd/v3 v3.2.3
	github.com/google/go-cmp v0.7.0
	github.com/google/uuid v1.6.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	golang.org/x/sync v0.19.0
	golang.org/x/time v0.14.0
)

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
