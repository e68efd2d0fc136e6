package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/web"
)

// fakeBrowser answers every page with its URL.
type fakeBrowser struct{ closed *int }

func (fakeBrowser) Screenshot(_ context.Context, url string) ([]byte, error) {
	return []byte("png of " + url), nil
}
func (fakeBrowser) Text(_ context.Context, url string) (string, error) { return "text of " + url, nil }
func (b fakeBrowser) Close() error {
	*b.closed++
	return nil
}

func toolNames(t *testing.T, cfg ExtensionConfig) (*Extension, []string) {
	t.Helper()
	cfg.WorkingDir = t.TempDir()
	x := NewExtension(cfg)
	if err := x.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	var names []string
	for _, tl := range x.Tools() {
		names = append(names, tl.Name)
	}
	return x, names
}

// TestBrowserToolComesWithABrowser checks that the browser tool is there
// only with a Browser: one configured, or the default one registered (as
// importing tools/browser does), which is opened on the first call, with
// the extension's FetchPolicy, and closed with the extension.
func TestBrowserToolComesWithABrowser(t *testing.T) {
	saved := defaultBrowser.Swap(nil) // this test binary imports tools/browser
	t.Cleanup(func() { defaultBrowser.Store(saved) })

	_, names := toolNames(t, ExtensionConfig{})
	if slices.Contains(names, "browser") || !slices.Contains(names, "fetch") || !slices.Contains(names, "read_file") {
		t.Errorf("without a browser: tools %v, want fetch and read_file and no browser", names)
	}

	var closedOwn int
	x, names := toolNames(t, ExtensionConfig{Browser: fakeBrowser{&closedOwn}})
	if !slices.Contains(names, "browser") {
		t.Errorf("with ExtensionConfig.Browser: tools %v, want browser", names)
	}
	if got, err := x.browse(context.Background(), browserArgs{URL: "https://example.com/", Action: "text"}); err != nil || got != "text of https://example.com/" {
		t.Errorf("the configured browser: %v, %v", got, err)
	}
	x.Close()
	if closedOwn != 0 {
		t.Error("the extension closed a Browser it was given")
	}

	var opened, closed int
	var policy web.Policy
	RegisterBrowser("fake", func(p web.Policy) (Browser, error) {
		opened++
		policy = p
		return fakeBrowser{&closed}, nil
	})
	x, names = toolNames(t, ExtensionConfig{FetchPolicy: web.Policy{AllowHosts: []string{"example.com"}}})
	if !slices.Contains(names, "browser") {
		t.Errorf("with a registered browser: tools %v, want browser", names)
	}
	if opened != 0 {
		t.Error("the registered browser was opened before the tool's first call")
	}
	for range 2 {
		if _, err := x.browse(context.Background(), browserArgs{URL: "https://example.com/", Action: "screenshot"}); err != nil {
			t.Fatal(err)
		}
	}
	if opened != 1 || !slices.Equal(policy.AllowHosts, []string{"example.com"}) {
		t.Errorf("opened %d times with %+v, want once with the extension's FetchPolicy", opened, policy)
	}
	x.Close()
	if closed != 1 {
		t.Errorf("the registered browser was closed %d times with the extension, want 1", closed)
	}

	for _, tc := range []struct {
		name string
		open BrowserOpener
		want string
	}{
		{"other", func(web.Policy) (Browser, error) { return nil, nil }, `the default browser is "fake" already`},
		{"", func(web.Policy) (Browser, error) { return nil, nil }, "needs a name"},
		{"nil", nil, "needs a name and an opener"},
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, tc.want) {
					t.Errorf("RegisterBrowser(%q): panicked with %q, want %q", tc.name, v, tc.want)
				}
			}()
			RegisterBrowser(tc.name, tc.open)
		}()
	}
}
