package provider

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRegisterAndOpen(t *testing.T) {
	var gotArg string
	Register("test-registry", func(arg string) (Provider, error) {
		gotArg = arg
		if arg == "fail" {
			return nil, errors.New("test-registry: no such model")
		}
		return Func{Label: "test-registry:" + arg, Fn: func(context.Context, Request) (Response, error) {
			return Response{Content: "hi"}, nil
		}}, nil
	})
	if !slices.Contains(Names(), "test-registry") || !slices.IsSorted(Names()) {
		t.Errorf("Names() = %v, want it sorted and holding test-registry", Names())
	}
	p, err := Open("test-registry:model:with:colons")
	if err != nil {
		t.Fatal(err)
	}
	if gotArg != "model:with:colons" || p.Name() != "test-registry:model:with:colons" {
		t.Errorf("opener got %q, provider %q; want everything after the first colon", gotArg, p.Name())
	}
	if _, err := Open("test-registry:fail"); err == nil || err.Error() != "test-registry: no such model" {
		t.Errorf("got %v, want the opener's error as it is", err)
	}
	_, err = Open("nope:x")
	if err == nil || !strings.Contains(err.Error(), `unknown provider "nope"`) || !strings.Contains(err.Error(), "test-registry") {
		t.Errorf("got %v, want an unknown provider error listing test-registry", err)
	}
	for _, spec := range []string{"", "test-registry", "test-registry:", ":x"} {
		if _, err := Open(spec); err == nil || !strings.Contains(err.Error(), "want PROVIDER:MODEL") {
			t.Errorf("Open(%q) = %v, want a PROVIDER:MODEL error", spec, err)
		}
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	open := func(string) (Provider, error) { return nil, nil }
	Register("test-dup", open)
	for _, c := range []struct {
		name string
		open Opener
		want string
	}{
		{"test-dup", open, "already registered"},
		{"", open, "want a word"},
		{"a:b", open, "want a word"},
		{"a b", open, "want a word"},
		{"test-nil", nil, "nil Opener"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("Register(%q) panicked with %v, want %q", c.name, r, c.want)
				}
			}()
			Register(c.name, c.open)
		}()
	}
	if slices.Contains(Names(), "test-nil") {
		t.Error("a refused registration is listed")
	}
}
