// Package workpath spells the paths that tools take and print, and makes
// them canonical: relative to a working directory, slash-separated, clean,
// and never outside it.
//
// A path may be given bare or in the quoted form the tools print (see
// Quote). Canonical decodes it, makes an absolute path under the working
// directory relative, cleans "." and "..", and refuses a path that leaves
// the working directory, lexically or through a symbolic link. The
// executor makes every declared path argument canonical once, before any
// hook runs, and the built-in tools open what they were given, so what a
// policy decided on is what is opened: Canonical resolves links by the
// rules the tools' own walk follows when it opens a file. A link changed
// between the two can change which file inside the working directory is
// opened, never lead outside it (the tools open beneath it, through
// os.Root). There is one decoder and one canonical form; nothing else in
// agentsh reads the quoted form.
//
// Within, Match and Clean are the lexical helpers policies use (the path
// module of scripts).
//
// Every function is safe for concurrent use; a Dir may be shared.
package workpath
