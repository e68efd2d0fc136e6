// Package jsonl reads the JSON-lines files agentsh keeps (session files,
// recordings), whose lines may be longer than any buffer: a line holds a
// whole message or request.
package jsonl

import "bufio"

// ReadLine appends the next line of br to buf and returns it, with its
// newline unless it is the last line and has none; at the end of br the
// error is io.EOF (with the last line, if it had no newline).
func ReadLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}
