package web

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// encode returns s in e, as a server would send it.
func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q: %v", s, err)
	}
	return b
}

func TestConvertCharsets(t *testing.T) {
	const (
		ja    = "日本語のテキスト"
		ko    = "한국어 텍스트"
		zh    = "简体中文文本"
		ru    = "Русский текст"
		mixed = "naïve – “ok” ☃"
	)
	utf16be := unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	utf16le := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	page := func(meta string, body []byte) []byte {
		return append([]byte("<html><head>"+meta+"</head><body><p>"), append(body, "</p></body></html>"...)...)
	}
	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        string
	}{
		{"shift_jis header", encode(t, japanese.ShiftJIS, ja), "text/plain; charset=Shift_JIS", ja},
		{"sjis alias", encode(t, japanese.ShiftJIS, ja), "text/plain; charset=sjis", ja},
		{"euc-jp", encode(t, japanese.EUCJP, ja), "text/plain; charset=euc-jp", ja},
		{"euc-kr header", encode(t, korean.EUCKR, ko), "text/plain; charset=EUC-KR", ko},
		{"gbk header", encode(t, simplifiedchinese.GBK, zh), "text/plain; charset=gbk", zh},
		{"gb2312 means gbk", encode(t, simplifiedchinese.GBK, zh), "text/plain; charset=gb2312", zh},
		{"gb18030", encode(t, simplifiedchinese.GB18030, zh), "text/plain; charset=gb18030", zh},
		{"koi8-r header", encode(t, charmap.KOI8R, ru), "text/plain; charset=koi8-r", ru},
		{"windows-1251", encode(t, charmap.Windows1251, ru), "text/plain; charset=windows-1251", ru},
		{"quoted label", encode(t, charmap.KOI8R, ru), `text/plain; charset="KOI8-R"`, ru},
		{"utf-16be bom", encode(t, utf16be, mixed), "text/plain", mixed},
		{"utf-16le bom", encode(t, utf16le, mixed), "text/plain", mixed},
		{"bom beats the header", encode(t, utf16le, mixed), "text/plain; charset=koi8-r", mixed},
		{"utf-16 bom sniffed", encode(t, utf16be, mixed), "", mixed},
		{"utf-8 bom beats the header", append([]byte("\xef\xbb\xbf"), mixed...), "text/plain; charset=windows-1252", mixed},
		{"json in shift_jis", encode(t, japanese.ShiftJIS, `{"k":"`+ja+`"}`), "application/json; charset=shift_jis", `{"k":"` + ja + `"}`},

		{"meta charset", page(`<meta charset="shift_jis">`, encode(t, japanese.ShiftJIS, ja)), "text/html", ja},
		{"meta unquoted", page(`<meta charset=euc-kr>`, encode(t, korean.EUCKR, ko)), "text/html", ko},
		{"meta http-equiv", page(`<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">`, encode(t, charmap.KOI8R, ru)), "text/html", ru},
		{"meta in a sniffed page", page(`<meta charset="gbk">`, encode(t, simplifiedchinese.GBK, zh)), "", zh},
		{"header beats meta", page(`<meta charset="shift_jis">`, encode(t, korean.EUCKR, ko)), "text/html; charset=euc-kr", ko},
		{"meta windows-1252 over valid utf-8", page(`<meta charset="windows-1252">`, []byte("caf\xc3\xa9")), "text/html", "cafÃ©"},
		{"meta utf-8 over invalid bytes", page(`<meta charset="utf-8">`, []byte("caf\xe9")), "text/html", "caf\uFFFD"},
		{"no declaration, utf-8", page("", []byte(mixed)), "text/html", mixed},
		{"no declaration, latin-1", page("", []byte("caf\xe9")), "text/html", "café"},
		// The first KiB is plain ASCII; the bytes after it still decide.
		{"no declaration, latin-1 after 1 KiB", page("<title>"+strings.Repeat("a", 2000)+"</title>", []byte("caf\xe9")), "text/html", "café"},
		{"no declaration, utf-8 after 1 KiB", page("<title>"+strings.Repeat("a", 2000)+"</title>", []byte(mixed)), "text/html", mixed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Convert(tt.body, tt.contentType, "", FormatText)
			if err != nil {
				t.Fatal(err)
			}
			checkDecoded(t, got, tt.body, tt.want)
		})
	}
}

// TestConvertCharsetsHostile: labels and declarations a page may get
// wrong, or set as a trap, fall back as Convert documents and never fail.
func TestConvertCharsetsHostile(t *testing.T) {
	sjis := encode(t, japanese.ShiftJIS, "日本語")
	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        string
	}{
		// An unknown label counts as none: valid UTF-8 stays UTF-8 ...
		{"bogus label, utf-8 body", []byte("naïve"), "text/plain; charset=x-no-such-charset", "naïve"},
		// ... and anything else is windows-1252.
		{"bogus label, latin-1 body", []byte("caf\xe9"), "text/plain; charset=x-no-such-charset", "café"},
		{"bogus meta", []byte(`<meta charset="x-bogus"><p>caf` + "\xe9</p>"), "text/html", "café"},
		{"empty label", []byte("caf\xe9"), "text/plain; charset=", "café"},
		{"malformed header", []byte("caf\xe9"), "text/plain; charset", "café"},
		// A declaration past the first 1024 bytes is not read, as in
		// browsers: the page is judged by its bytes.
		{"meta past the sniff window", append([]byte("<html><head><title>"+strings.Repeat("x", 1100)+`</title><meta charset="koi8-r"></head><p>`), "caf\xe9</p>"...), "text/html", "café"},
		{"meta past the sniff window, valid utf-8", append([]byte("<html><head><title>"+strings.Repeat("x", 1100)+`</title><meta charset="shift_jis"></head><p>`), "naïve</p>"...), "text/html", "naïve"},
		// A meta in a comment or a script is no declaration.
		{"meta in a comment", []byte(`<!-- <meta charset="shift_jis"> --><p>naïve</p>`), "text/html", "naïve"},
		// The WHATWG "replacement" encoding (labels of ISO-2022-KR and
		// other encodings that smuggle markup) turns the body into one
		// U+FFFD instead of passing it through.
		{"replacement label", []byte("<script>x</script>"), "text/plain; charset=iso-2022-kr", "\uFFFD"},
		// Shift_JIS bytes cut in the middle of a character.
		{"truncated multibyte", sjis[:len(sjis)-1], "text/plain; charset=shift_jis", "日本\uFFFD"},
		// A UTF-16 label with an odd number of bytes and no BOM.
		{"odd utf-16", []byte("a\x00b"), "text/plain; charset=utf-16le", "a\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Convert(tt.body, tt.contentType, "", FormatText)
			if err != nil {
				t.Fatal(err)
			}
			checkDecoded(t, got, tt.body, tt.want)
			if !utf8.ValidString(got) {
				t.Errorf("got invalid UTF-8 %q", got)
			}
		})
	}
}

// checkDecoded compares text that Convert returns as it is whole, and
// looks for want in the text of an HTML page (a body that starts with <).
func checkDecoded(t *testing.T, got string, body []byte, want string) {
	t.Helper()
	if bytes.HasPrefix(body, []byte("<")) {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want it to contain %q", got, want)
		}
		return
	}
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
