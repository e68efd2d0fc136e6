package main

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/wording"
)

// TestPermissionsChoices keeps the --permissions error true: it names
// every value the executor takes.
func TestPermissionsChoices(t *testing.T) {
	perms := []string{executor.PermissionsDefault.String(), executor.PermissionsAllowAll.String(), executor.PermissionsDenyUnlisted.String()}
	_, err := parseArgs([]string{"--permissions", "most"})
	if want := "want " + wording.OrList(perms); err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("--permissions most: %v, want an error ending %q", err, want)
	}
}
