/**
 * Model hub download: only on request and only when the caller passes
 * allowDownloads = true (the default is off, and then no network call is ever made).
 * Files resume with HTTP Range from a .part file and are checked against SHA-256.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, statSync, unlinkSync, createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { CancelledError, NotFoundError, UserError } from '../../shared/errors';
import type { ModelManifest } from './manifest';
import { importModel } from './models';

export interface CatalogueFile {
  path: string;
  sha256: string | null;
  bytes: number | null;
}

export interface CatalogueEntry {
  id: string;
  name: string;
  repository: string;
  revision: string;
  files: CatalogueFile[];
  licence: string;
  /** Approximate download size, for the user's decision. */
  approxMB: number;
}

/** Known exports. Hashes are filled in when known; unknown ones are recorded after download. */
export const CATALOGUE: CatalogueEntry[] = [
  {
    id: 'wavlm-base',
    name: 'WavLM Base (Xenova ONNX export)',
    repository: 'Xenova/wavlm-base',
    revision: 'main',
    files: ['config.json', 'preprocessor_config.json', 'onnx/model.onnx'].map((path) => ({ path, sha256: null, bytes: null })),
    licence: 'see the model card of microsoft/wavlm-base',
    approxMB: 380,
  },
  {
    id: 'hubert-base-ls960',
    name: 'HuBERT Base LS-960 (Xenova ONNX export)',
    repository: 'Xenova/hubert-base-ls960',
    revision: 'main',
    files: ['config.json', 'preprocessor_config.json', 'onnx/model.onnx'].map((path) => ({ path, sha256: null, bytes: null })),
    licence: 'Apache-2.0 (facebook/hubert-base-ls960)',
    approxMB: 380,
  },
  {
    id: 'wav2vec2-base-960h',
    name: 'wav2vec 2.0 Base 960h (Xenova ONNX export)',
    repository: 'Xenova/wav2vec2-base-960h',
    revision: 'main',
    files: ['config.json', 'preprocessor_config.json', 'onnx/model.onnx'].map((path) => ({ path, sha256: null, bytes: null })),
    licence: 'Apache-2.0 (facebook/wav2vec2-base-960h)',
    approxMB: 380,
  },
  {
    id: 'whisper-base-encoder',
    name: 'Whisper base encoder (onnx-community export)',
    repository: 'onnx-community/whisper-base',
    revision: 'main',
    files: ['config.json', 'preprocessor_config.json', 'onnx/encoder_model.onnx'].map((path) => ({ path, sha256: null, bytes: null })),
    licence: 'MIT (openai/whisper-base)',
    approxMB: 83,
  },
];

export interface DownloadProgress {
  file: string;
  received: number;
  total: number | null;
}

export interface DownloadOptions {
  /** Must be true: without it the function refuses before any network access. */
  allowDownloads: boolean;
  baseUrl?: string;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  /** For tests; defaults to the global fetch. */
  fetchImpl?: typeof fetch;
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export function refuseUnlessAllowed(o: { allowDownloads?: boolean }): void {
  if (o.allowDownloads !== true) {
    throw new UserError('Downloads are off: Equivox works offline and makes no network call unless you turn downloads on for this request (allowDownloads).', 'allowDownloads');
  }
}

/** Download url to dest, resuming from dest.part with a Range request. Returns the SHA-256. */
export async function downloadFile(url: string, dest: string, o: DownloadOptions & { expectedSha256?: string | null; label?: string }): Promise<string> {
  refuseUnlessAllowed(o);
  const doFetch = o.fetchImpl ?? fetch;
  mkdirSync(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  const have = existsSync(part) ? statSync(part).size : 0;
  const res = await doFetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: o.signal, redirect: 'follow' });
  if (res.status === 416) {
    // The .part file is already complete (or longer than the file): start over if it fails the check.
  } else if (!res.ok) {
    throw new UserError(`download of ${url} failed: HTTP ${res.status}`);
  }
  const resumed = res.status === 206;
  const startAt = resumed ? have : 0;
  const lengthHeader = res.headers.get('content-length');
  const total = lengthHeader !== null ? startAt + Number(lengthHeader) : null;
  if (res.status !== 416 && res.body) {
    const out = createWriteStream(part, { flags: resumed ? 'a' : 'w' });
    let received = startAt;
    try {
      const reader = res.body.getReader();
      for (;;) {
        if (o.signal?.aborted) throw new CancelledError();
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        if (!out.write(value)) await new Promise<void>((r) => out.once('drain', () => r()));
        o.onProgress?.({ file: o.label ?? url, received, total });
      }
    } finally {
      await new Promise<void>((r) => out.end(() => r()));
    }
  }
  const sha = await sha256File(part);
  if (o.expectedSha256 && sha !== o.expectedSha256) {
    unlinkSync(part);
    throw new UserError(`${o.label ?? url}: SHA-256 mismatch (expected ${o.expectedSha256}, got ${sha}); the partial file was removed`);
  }
  renameSync(part, dest);
  return sha;
}

/** Download a catalogue entry into dataDir/downloads/<id>/ and import it into the model store. */
export async function downloadModel(dataDir: string, entryId: string, o: DownloadOptions & { catalogue?: CatalogueEntry[] }): Promise<ModelManifest> {
  refuseUnlessAllowed(o);
  const entry = (o.catalogue ?? CATALOGUE).find((e) => e.id === entryId);
  if (!entry) throw new NotFoundError(`no catalogue entry ${entryId}`, 'id');
  const base = (o.baseUrl ?? 'https://huggingface.co').replace(/\/$/, '');
  const folder = join(dataDir, 'downloads', entry.id);
  for (const f of entry.files) {
    const dest = join(folder, f.path);
    if (existsSync(dest) && (!f.sha256 || (await sha256File(dest)) === f.sha256)) continue;
    await downloadFile(`${base}/${entry.repository}/resolve/${entry.revision}/${f.path}`, dest, { ...o, expectedSha256: f.sha256, label: f.path });
  }
  return importModel(dataDir, { folder, name: entry.name, licence: entry.licence, source: `${base}/${entry.repository} (${entry.revision})` });
}
