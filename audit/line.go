package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The fixed parts of a line: it starts with seq and prev and ends with
// the hash, so a writer can encode the body before it takes the lock and
// a reader can find the hash without parsing the line.
const (
	hashLen    = sha256.Size * 2 // hex digits
	hashMember = `,"hash":"`
	// suffixLen is the length of `,"hash":"<64 hex digits>"}`.
	suffixLen = len(hashMember) + hashLen + len(`"}`)
)

var (
	zeroHead = []byte(`{"seq":0,"prev":"",`)
	zeroTail = []byte(`,"hash":""}`)
)

// body encodes rec without its chain: the members between prev and hash,
// with the comma before them. Arguments that are not JSON, or not UTF-8,
// are made so (see cleanJSON): a record is always one line of JSON.
func body(rec *Record) ([]byte, error) {
	r := *rec
	r.Seq, r.Prev, r.Hash = 0, "", ""
	r.Call.Args, r.Call.RawArgs = cleanJSON(r.Call.Args), cleanJSON(r.Call.RawArgs)
	if r.Call.Args == nil {
		r.Call.Args = json.RawMessage("null")
	}
	r.Decisions = cleanDecisions(r.Decisions)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&r); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if !bytes.HasPrefix(b, zeroHead) || !bytes.HasSuffix(b, zeroTail) {
		panic("audit: Record no longer encodes seq and prev first and hash last")
	}
	return b[len(zeroHead)-1 : len(b)-len(zeroTail)], nil // from the comma after prev
}

// head is the start of record seq's line, chained to prev: every line
// begins with it, and a torn line is a prefix of it or begins with it.
func head(dst []byte, seq uint64, prev string) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, `,"prev":"`...)
	dst = append(dst, prev...)
	return append(dst, '"')
}

// seal appends record seq's line to dst: head, body, then the hash of
// the two, and a newline. It returns the line and the hash.
func seal(dst []byte, seq uint64, prev string, body []byte) ([]byte, string) {
	start := len(dst)
	dst = head(dst, seq, prev)
	dst = append(dst, body...)
	sum := sha256.Sum256(dst[start:])
	dst = append(dst, hashMember...)
	n := len(dst)
	dst = hex.AppendEncode(dst, sum[:])
	hash := string(dst[n:])
	return append(dst, `"}`+"\n"...), hash
}

// hashSuffix returns the hash of a line's last suffixLen bytes, or ok
// false when they are not `,"hash":"<64 hex digits>"}`.
func hashSuffix(tail []byte) (string, bool) {
	if len(tail) != suffixLen || !bytes.HasPrefix(tail, []byte(hashMember)) || !bytes.HasSuffix(tail, []byte(`"}`)) {
		return "", false
	}
	h := string(tail[len(hashMember) : len(hashMember)+hashLen])
	return h, IsHash(h)
}

// split returns the hashed part of a line (without its newline) and the
// hash it ends with, or ok false when it does not end like a record.
func split(line []byte) (hashed []byte, hash []byte, ok bool) {
	if len(line) < suffixLen+len(`{"seq":1,"prev":""`) {
		return nil, nil, false
	}
	cut := len(line) - suffixLen
	if _, ok := hashSuffix(line[cut:]); !ok {
		return nil, nil, false
	}
	return line[:cut], line[cut+len(hashMember) : cut+len(hashMember)+hashLen], true
}

// sum is the hex SHA-256 of b.
func sum(b []byte) [hashLen]byte {
	s := sha256.Sum256(b)
	var h [hashLen]byte
	hex.Encode(h[:], s[:])
	return h
}

// cleanJSON is raw as a JSON value that keeps a record one line of valid
// UTF-8: JSON as it is (encoding compacts it); JSON with bytes that are not UTF-8 with
// those bytes replaced (U+FFFD); anything that is not JSON as a string.
func cleanJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if json.Valid(raw) {
		if utf8.Valid(raw) {
			return raw // encoding it compacts it
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // numbers keep their digits
		var v any
		if dec.Decode(&v) == nil {
			if b, err := json.Marshal(v); err == nil {
				return b
			}
		}
	}
	b, _ := json.Marshal(string(raw)) // invalid UTF-8 becomes U+FFFD
	return b
}
