/**
 * How every ffmpeg and ffprobe call names its input, so that ffmpeg reads the granted
 * file and nothing else. Without limits ffmpeg follows references: an `.m3u8` playlist
 * (HLS), a concat list, a DASH manifest or an SDP file inside a granted folder makes it
 * open any file the user can read, or a network address. So:
 *
 * - the file's first bytes are sniffed, whatever its extension: playlists, concat lists
 *   and other reference formats are refused with a reason naming the format, and so is
 *   any other text file (every audio container Equivox reads is binary);
 * - ffmpeg may use only the demuxers of the audio containers Equivox supports
 *   (`-format_whitelist`) and only the `file` protocol (`-protocol_whitelist`), and the
 *   path is given as `file:<path>` so no part of it can be read as a protocol name.
 *
 * In-process decoders (a WAV reader) never go through ffmpeg, but they call
 * refusedInputReason first as well.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * ffmpeg demuxers Equivox reads: WAV/W64, FLAC, MP3, Ogg (Opus, Vorbis, FLAC), MP4/M4A
 * (mov), WebM/Matroska, AIFF, CAF, AU and raw AAC (ADTS). None follows references to
 * other files (mov's external data references stay off, ffmpeg's default).
 */
export const AUDIO_DEMUXERS = ['wav', 'w64', 'flac', 'mp3', 'ogg', 'mov', 'matroska', 'aiff', 'caf', 'au', 'aac'] as const;

/** The same list in words, for messages to the auditor. */
export const AUDIO_FORMATS_TEXT = 'WAV, FLAC, MP3, Ogg/Opus, M4A/MP4, WebM/Matroska, AIFF, CAF, AU or AAC';

const SNIFF_BYTES = 4096;

/** Formats that point at other files or addresses, recognised by their first bytes. */
const REFERENCE_FORMATS: { name: string; test: (text: string) => boolean }[] = [
  { name: 'an M3U/HLS playlist', test: (t) => /^#EXT(M3U|INF|-X-)/m.test(t) },
  { name: 'an ffmpeg concat list', test: (t) => /^\s*ffconcat\s+version/i.test(t) || /^\s*file\s+\S/m.test(t) },
  { name: 'a PLS playlist', test: (t) => /^\s*\[playlist\]/i.test(t) },
  { name: 'a DASH manifest (MPD)', test: (t) => /<MPD[\s>]/.test(t) },
  { name: 'a SMIL playlist', test: (t) => /<smil[\s>]/i.test(t) },
  { name: 'an XSPF playlist', test: (t) => /<playlist[\s>][\s\S]*xspf/i.test(t) },
  { name: 'an ASX playlist', test: (t) => /<asx[\s>]/i.test(t) },
  { name: 'an ASF reference file', test: (t) => /^\s*\[Reference\]/i.test(t) },
  { name: 'an SDP stream description', test: (t) => /^v=0\s*$/m.test(t) && /^m=(audio|video)\b/m.test(t) },
  { name: 'a text file of addresses', test: (t) => /\b(https?|rtsp|rtmp|ftp|udp|tcp|srt|file|concat|subfile|data):/i.test(t) },
];

/** True when the bytes look like text: no NUL and almost no control characters. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false;
  let control = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) control += 1;
  }
  return control / head.length < 0.01;
}

/** Why these first bytes are not an audio file ffmpeg may open, or null. */
export function sniffRefusal(head: Buffer): string | null {
  if (!looksLikeText(head)) return null;
  const text = head.toString('latin1').replace(/^\ufeff|^\xef\xbb\xbf/, '');
  const ref = REFERENCE_FORMATS.find((f) => f.test(text));
  if (ref) return `the file is ${ref.name}, which points to other files or addresses; Equivox reads only audio files themselves (${AUDIO_FORMATS_TEXT})`;
  return `the file is text, not audio (Equivox reads ${AUDIO_FORMATS_TEXT})`;
}

/** Read the first bytes of `file` and say why ffmpeg must not open it, or null. Unreadable files are left to ffmpeg's own error. */
export function refusedInputReason(file: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(SNIFF_BYTES);
    const n = readSync(fd, head, 0, SNIFF_BYTES, 0);
    return sniffRefusal(head.subarray(0, n));
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The input part of an ffmpeg or ffprobe command line: the whitelists, then `-i file:<path>`. */
export function ffmpegInputArgs(file: string): string[] {
  return ['-format_whitelist', AUDIO_DEMUXERS.join(','), '-protocol_whitelist', 'file', '-i', `file:${file}`];
}

/**
 * ffmpeg's refusal of a demuxer outside the whitelist ("[hls @ 0x…] Format not on
 * whitelist …") in plain words, or null when stderr holds none.
 */
export function whitelistRefusal(stderr: string): string | null {
  // Older builds name a demuxer by all its aliases ("[hls,applehttp @ 0x…]"): the first is its name.
  const m = /\[([\w,]+) @ [^\]]*\] Format not on whitelist/.exec(stderr);
  if (!m) return null;
  return `its format (${m[1]!.split(',')[0]}) is not one Equivox reads: it can refer to other files or addresses (Equivox reads ${AUDIO_FORMATS_TEXT})`;
}
