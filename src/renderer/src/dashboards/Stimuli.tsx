import { type JSX, useEffect, useRef, useState } from 'react';
import { fmt } from '../../../shared/charts';
import type { ClipInfo } from '../../../shared/api/clips';
import type { AuditResults, SpeatTestDesign } from '../../../shared/results';
import { asUiError, call } from '../api';

export interface StimulusSelection {
  testId: string;
  modelId: string | null;
}

const CHUNK = 500;

async function fetchClips(projectId: string, ids: string[]): Promise<Map<string, ClipInfo>> {
  const out = new Map<string, ClipInfo>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = await call('clips.get', { projectId, clipIds: ids.slice(i, i + CHUNK) });
    for (const c of part) out.set(c.id, c);
  }
  return out;
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** One audio player for the whole panel: starting a clip stops the previous one. */
function usePlayer(projectId: string): { playing: string | null; loading: string | null; error: string | null; toggle: (clipId: string) => void } {
  const audioRef = useRef<HTMLAudioElement | null>(null);
  const urlRef = useRef<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  const [loading, setLoading] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stop = () => {
    audioRef.current?.pause();
    audioRef.current = null;
    if (urlRef.current) URL.revokeObjectURL(urlRef.current);
    urlRef.current = null;
    setPlaying(null);
  };
  useEffect(() => stop, []);
  const toggle = (clipId: string) => {
    if (playing === clipId) return stop();
    stop();
    setError(null);
    setLoading(clipId);
    call('clips.audio', { projectId, clipId })
      .then(async (a) => {
        const url = URL.createObjectURL(new Blob([base64ToBytes(a.base64)], { type: a.mime }));
        urlRef.current = url;
        const audio = new Audio(url);
        audioRef.current = audio;
        audio.onended = () => {
          if (audioRef.current === audio) stop();
        };
        setPlaying(clipId);
        await audio.play();
      })
      .catch((e: unknown) => {
        stop();
        setError(asUiError(e).message);
      })
      .finally(() => setLoading(null));
  };
  return { playing, loading, error, toggle };
}

function groupName(t: SpeatTestDesign, key: 'x' | 'y' | 'a' | 'b'): string {
  if (key === 'x') return `Group X: ${t.x.value} (${t.x.label})`;
  if (key === 'y') return `Group Y: ${t.y.value} (${t.y.label})`;
  return key === 'a' ? 'Pleasant speech (attribute A)' : 'Unpleasant speech (attribute B)';
}

/** The stimuli behind a SpEAT point: four lists of clips, each with a play button. */
export function StimuliPanel({ projectId, results, selection, onClose }: { projectId: string; results: AuditResults; selection: StimulusSelection; onClose: () => void }): JSX.Element {
  const t = results.speat?.tests.find((x) => x.id === selection.testId);
  const [clips, setClips] = useState<Map<string, ClipInfo> | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const player = usePlayer(projectId);

  useEffect(() => {
    headingRef.current?.focus();
  }, [selection.testId, selection.modelId]);

  useEffect(() => {
    if (!t) return;
    let live = true;
    setClips(null);
    setLoadError(null);
    const ids = [...new Set([...t.stimuli.x, ...t.stimuli.y, ...t.stimuli.a, ...t.stimuli.b])];
    fetchClips(projectId, ids)
      .then((m) => live && setClips(m))
      .catch((e: unknown) => live && setLoadError(asUiError(e).message));
    return () => {
      live = false;
    };
  }, [projectId, t]);

  if (!t) return <p>This test is not in the results.</p>;
  const model = selection.modelId ? results.models.find((m) => m.id === selection.modelId)?.name : null;
  return (
    <section className="dash-stimuli card-inset" aria-labelledby="dash-stimuli-title" data-testid="stimuli-panel">
      <div className="dash-stimuli-head">
        <h3 id="dash-stimuli-title" ref={headingRef} tabIndex={-1}>
          Stimuli of “{t.name}”{model ? ` (point of ${model})` : ''}
        </h3>
        <button type="button" onClick={onClose}>
          Close stimuli
        </button>
      </div>
      <p className="muted">
        The same recordings go into every model’s point for this test. Play them to check that they are what the test claims to compare.
      </p>
      {loadError ? <p className="error">Could not list the recordings: {loadError}</p> : null}
      {player.error ? (
        <p className="error" role="alert">
          Could not play the recording: {player.error}
        </p>
      ) : null}
      <p className="visually-hidden" aria-live="polite">
        {player.playing ? 'Playing' : ''}
      </p>
      <div className="dash-stimuli-groups">
        {(['x', 'y', 'a', 'b'] as const).map((key) => {
          const ids = t.stimuli[key];
          return (
            <div key={key} className="dash-stimuli-group">
              <h4>
                {groupName(t, key)} <span className="muted">· {ids.length} recordings</span>
              </h4>
              {ids.length === 0 ? (
                <p className="muted">No recordings listed.</p>
              ) : (
                <ul>
                  {ids.map((id) => {
                    const c = clips?.get(id);
                    const label = c?.relPath ?? id;
                    const isPlaying = player.playing === id;
                    return (
                      <li key={id}>
                        <button
                          type="button"
                          className="dash-play"
                          aria-pressed={isPlaying}
                          aria-label={`${isPlaying ? 'Stop' : 'Play'} ${label}`}
                          disabled={player.loading === id}
                          onClick={() => player.toggle(id)}
                          data-state={isPlaying ? 'playing' : 'stopped'}
                        >
                          {player.loading === id ? '…' : isPlaying ? '■ Stop' : '▶ Play'}
                        </button>
                        <span className="dash-clip">
                          <span className="dash-clip-path" title={id}>
                            {label}
                          </span>
                          {c ? (
                            <span className="muted">
                              {c.speaker ? ` · speaker ${c.speaker}` : ''}
                              {c.durationS !== null ? ` · ${fmt(c.durationS)} s` : ''}
                              {c.valence !== null ? ` · valence ${fmt(c.valence)}` : ''}
                              {c.transcript ? ` · “${c.transcript}”` : ''}
                            </span>
                          ) : clips ? (
                            <span className="muted"> · not found in this project</span>
                          ) : null}
                        </span>
                      </li>
                    );
                  })}
                </ul>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
