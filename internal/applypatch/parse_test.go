package applypatch

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	patch := `*** Begin Patch
*** Add File: src/new.txt
+hello
+world
*** Update File: src/main.go
*** Move to: src/app.go
@@ func main() {
 	a := 1
-	b := 2
+	b := 3
*** End of File
*** Delete File: old.txt
  *** Add File:   ../outside.txt  
+x
*** End Patch
`
	got, err := Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Op: Add, Path: "src/new.txt", Content: "hello\nworld\n"},
		{Op: Update, Path: "src/main.go", MoveTo: "src/app.go", Hunks: []Hunk{{Context: "func main() {", Old: "\ta := 1\n\tb := 2\n", New: "\ta := 1\n\tb := 3\n"}}},
		{Op: Delete, Path: "old.txt"},
		{Op: Add, Path: "../outside.txt", Content: "x\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %#v\nwant %#v", got, want)
	}
}

func TestParseHeredocAndCRLF(t *testing.T) {
	patch := "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Delete File: a.txt\r\n*** End Patch\r\nEOF\r\n"
	got, err := Parse(patch)
	if err != nil || len(got) != 1 || got[0].Path != "a.txt" || got[0].Op != Delete {
		t.Fatalf("Parse = %#v, %v", got, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ patch, want string }{
		{"", `no "*** Begin Patch"`},
		{"hello\n*** Begin Patch\n*** End Patch", "a patch starts with"},
		{"*** Begin Patch\n*** Add File: a\n+x\n", `no "*** End Patch"`},
		{"*** Begin Patch\n*** End Patch\n", "changes no file"},
		{"*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n", "want"},
		{"*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch\n", "a change line starts with"},
		{"*** Begin Patch\n*** Add File: \n+x\n*** End Patch\n", "no path"},
		{"*** Begin Patch\n*** Update File: a\n*** Move to: \n*** End Patch\n", "a move to no path"},
		{"*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n", "text after"},
	} {
		if _, err := Parse(c.patch); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error with %q", c.patch, err, c.want)
		}
	}
}

// Whatever the input, Parse either fails or names a path for every
// change: it never returns a change it could not place.
func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := Parse(s)
		if err != nil {
			return
		}
		if len(cs) == 0 {
			t.Fatal("no error and no change")
		}
		for _, c := range cs {
			if strings.TrimSpace(c.Path) == "" || c.Path != strings.TrimSpace(c.Path) {
				t.Fatalf("change %#v has no clean path", c)
			}
		}
	})
}
