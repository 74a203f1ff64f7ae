/**
 * How an import writes clip rows: in batches, one transaction each, so a cancel or a
 * crash leaves whole rows only and a re-run redoes what was not committed. One
 * transaction per row cost a commit (WAL append and lock round trip) per clip; a batch
 * of a few hundred rows or a quarter of a second makes that negligible while progress,
 * reported after each commit, stays live.
 */
import type Database from 'better-sqlite3';

/** A clip row as the importer writes it (column names as in the clips table). */
export interface ClipWrite {
  id: string;
  dataset_id: string;
  row_index: number;
  path: string;
  rel_path: string;
  sha256: string | null;
  duration_s: number | null;
  sample_rate: number | null;
  channels: number | null;
  codec: string | null;
  rms: number | null;
  peak: number | null;
  speaker: string | null;
  groups_json: string;
  transcript: string | null;
  hypothesis: string | null;
  valence: number | null;
  metadata_json: string;
  status: 'ok' | 'warning' | 'excluded';
  issues_json: string;
}

export class ClipWriter {
  private readonly remove: Database.Statement;
  private readonly insert: Database.Statement;
  private readonly write: (rows: readonly ClipWrite[]) => void;
  private pending: ClipWrite[] = [];
  private last = Date.now();

  constructor(
    db: Database.Database,
    private readonly onCommit: (rows: number) => void = () => undefined,
    private readonly maxRows = 100,
    private readonly maxMs = 250,
  ) {
    this.remove = db.prepare('DELETE FROM clips WHERE dataset_id = ? AND row_index = ?');
    this.insert = db.prepare(
      `INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s, sample_rate, channels, codec, rms, peak, speaker,
         groups_json, transcript, hypothesis, valence, metadata_json, status, issues_json)
       VALUES (@id, @dataset_id, @row_index, @path, @rel_path, @sha256, @duration_s, @sample_rate, @channels, @codec, @rms, @peak, @speaker,
         @groups_json, @transcript, @hypothesis, @valence, @metadata_json, @status, @issues_json)`,
    );
    this.write = db.transaction((rows: readonly ClipWrite[]) => {
      for (const r of rows) {
        this.remove.run(r.dataset_id, r.row_index);
        this.insert.run(r);
      }
    });
  }

  /** Queue a row (replacing any stored row with the same dataset and row index); commits when the batch is full or old enough. */
  add(row: ClipWrite): void {
    this.pending.push(row);
    if (this.pending.length >= this.maxRows || Date.now() - this.last >= this.maxMs) this.flush();
  }

  /** Commit the queued rows now. */
  flush(): void {
    this.last = Date.now();
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    this.write(rows);
    this.onCommit(rows.length);
  }

  /** Rows queued and not yet committed. */
  get queued(): number {
    return this.pending.length;
  }
}
