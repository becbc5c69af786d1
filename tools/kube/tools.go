//go:build tools

// The commands this module builds; the build tag keeps them out of any compile so that
// `go mod tidy` records their dependencies.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
