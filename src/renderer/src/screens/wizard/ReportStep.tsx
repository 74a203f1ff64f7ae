import { type FormEvent, type JSX, useCallback, useEffect, useState } from 'react';
import type { BuiltReport, IdentitySummary, KeyStoreStatus, ReportVerification } from '../../../../shared/api/reports';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { PathInput } from '../../components/PathInput';
import { SECTION_INFO } from './PurposeStep';
import { useResults } from './ResultsView';
import type { StepProps } from './step-props';
import type { Nav } from '../../nav';
import { completeness, completenessText } from '../../../../shared/completeness';
import { SECTION_SHORT } from '../../../../shared/requirements';
import { ReportActions } from '../../components/ReportActions';
import { VerificationResult } from '../../components/VerificationResult';
import { contextValue } from '../../../../shared/audit-context';

/** The Report step's remedial actions and re-audit date as reports.build takes them (blank ones left out). */
export function followUpInput(f: { remedialActions?: string; reauditDate?: string } | undefined): { remedialActions?: string; reauditDate?: string } {
  const actions = f?.remedialActions?.trim();
  const date = f?.reauditDate?.trim();
  return { ...(actions ? { remedialActions: actions } : {}), ...(date ? { reauditDate: date } : {}) };
}

/** The shortest passphrase the engine accepts (identities.create). */
const MIN_PASSPHRASE = 8;

/** How an identity's key is protected, in plain words for the auditor. */
export function protectionText(i: IdentitySummary): string {
  if (i.protection === 'protector')
    return `Encrypted by this computer's key store (${i.protectorKind === 'safeStorage' ? 'Keychain on macOS, your Windows account, or the desktop keyring on Linux' : (i.protectorKind ?? 'the OS key store')}): only your user account on this computer can unlock it.`;
  if (i.protection === 'passphrase') return 'Encrypted with the passphrase you chose. Equivox does not keep it: you type it each time you sign, and without it the key cannot be used.';
  return 'Encrypted with a random passphrase kept in a file beside it (“passphrase”): anyone who can read your Equivox data folder can sign as you. Create a new identity with a passphrase of your own to avoid this.';
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'report';
}

export function ReportStep({ project, draft, update, onDone, nav }: StepProps & { onDone: () => void; nav: Nav }): JSX.Element {
  const { results, error: resultsError } = useResults(project.id, draft.auditId);
  const [identities, setIdentities] = useState<IdentitySummary[] | null>(null);
  const [identityId, setIdentityId] = useState('');
  const [newName, setNewName] = useState('');
  const [newOrg, setNewOrg] = useState('');
  const [newEmail, setNewEmail] = useState('');
  const [idError, setIdError] = useState<UiError | null>(null);
  const [creating, setCreating] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const [keyStore, setKeyStore] = useState<KeyStoreStatus | null>(null);
  const [newPassphrase, setNewPassphrase] = useState('');
  const [newPassphrase2, setNewPassphrase2] = useState('');
  const [out, setOut] = useState('');
  const [built, setBuilt] = useState<BuiltReport | null>(null);
  const [buildError, setBuildError] = useState<UiError | null>(null);
  const [building, setBuilding] = useState(false);
  const [verification, setVerification] = useState<ReportVerification | null>(null);
  const [verifyError, setVerifyError] = useState<UiError | null>(null);
  const [confirmIncomplete, setConfirmIncomplete] = useState(false);

  const loadIdentities = useCallback(async () => {
    try {
      const list = await call('identities.list', {});
      setIdentities(list);
      setIdentityId((cur) => cur || list[0]?.id || '');
    } catch (err) {
      setIdError(asUiError(err));
      setIdentities([]);
    }
  }, []);
  useEffect(() => {
    void loadIdentities();
    call('identities.keyStore', {}).then(setKeyStore, (err: unknown) => setIdError(asUiError(err)));
  }, [loadIdentities]);
  useEffect(() => {
    if (results && !out) setOut(`${project.path}/reports/${slug(results.audit.title)}-${new Date().toISOString().slice(0, 10)}.pdf`);
  }, [results, out, project.path]);

  // Without a key store the new key is encrypted with a passphrase the auditor chooses (required in the desktop app).
  const askPassphrase = keyStore !== null && !keyStore.available;
  const passphraseProblem =
    !askPassphrase || (!keyStore.passphraseRequired && newPassphrase === '' && newPassphrase2 === '')
      ? null
      : newPassphrase.length < MIN_PASSPHRASE
        ? `The passphrase must be at least ${MIN_PASSPHRASE} characters.`
        : newPassphrase !== newPassphrase2
          ? 'The two passphrases differ: type the same one twice.'
          : null;

  const createIdentity = async (e: FormEvent) => {
    e.preventDefault();
    setIdError(null);
    setCreating(true);
    try {
      const id = await call('identities.create', { name: newName, organisation: newOrg, ...(newEmail.trim() ? { email: newEmail.trim() } : {}), ...(askPassphrase && newPassphrase ? { passphrase: newPassphrase } : {}) });
      await loadIdentities();
      setIdentityId(id.id);
      setNewName('');
      setNewOrg('');
      setNewEmail('');
      setNewPassphrase('');
      setNewPassphrase2('');
    } catch (err) {
      setIdError(asUiError(err));
    } finally {
      setCreating(false);
    }
  };

  const setFollowUp = (patch: NonNullable<typeof draft.followUp>) => update((d) => ({ followUp: { ...d.followUp, ...patch } }));
  const identity = identities?.find((i) => i.id === identityId) ?? null;
  const status = results ? completeness(results) : null;
  const incomplete = status !== null && !status.complete;
  const nothing = status !== null && status.ran.length === 0;

  const build = async () => {
    if (!draft.auditId || !identity) return;
    setBuildError(null);
    setVerification(null);
    setBuilding(true);
    try {
      const r = await call('reports.build', { project: project.id, auditId: draft.auditId, out, identityId: identity.id, ...(passphrase ? { passphrase } : {}), ...(incomplete ? { allowIncomplete: confirmIncomplete } : {}), ...followUpInput(draft.followUp) });
      setBuilt(r);
    } catch (err) {
      setBuildError(asUiError(err));
    } finally {
      setBuilding(false);
    }
  };

  const verify = async () => {
    if (!built) return;
    setVerifyError(null);
    try {
      setVerification(await call('reports.verify', { path: built.path }));
    } catch (err) {
      setVerifyError(asUiError(err));
    }
  };

  return (
    <div>
      <p className="lead">The report is a PDF signed with your identity, so anyone can check that it comes from you and was not changed afterwards. The numbers in it are exported alongside as data files.</p>
      <ErrorNote error={resultsError} what="Could not load the results for the report:" next="Go back to Run and check that the run finished." />

      <section className="card" aria-labelledby="preview-heading">
        <h2 id="preview-heading">1. Preview</h2>
        {results ? (
          <dl className="facts-list">
            <dt>Title</dt>
            <dd>{results.audit.title}</dd>
            <dt>Plan fingerprint</dt>
            <dd>
              {results.audit.planSha256 ? (
                <>
                  <code className="hash">{results.audit.planSha256}</code>
                  {results.audit.deviations.length > 0 ? ` — ${results.audit.deviations.length} change(s) from the locked plan, listed in the report` : ' — run exactly as locked'}
                </>
              ) : (
                'none: the plan was not locked before the run, and the report says that the analysis was not pre-registered'
              )}
            </dd>
            <dt>System under audit</dt>
            <dd>{contextValue(results.audit.context, 'system.name') ?? 'not stated (Purpose step; the report says so)'}</dd>
            <dt>Intended purpose</dt>
            <dd>{contextValue(results.audit.context, 'purpose.intended') ?? 'not stated (Purpose step; the report says so)'}</dd>
            <dt>Sections</dt>
            <dd>
              {status && completenessText(status)}: {status?.ran.map((s) => SECTION_INFO[s].name).join('; ') || 'none'}
            </dd>
            <dt>Recordings</dt>
            <dd>{results.datasets.map((d) => `${d.name} (${d.clips - d.excluded} used${d.synthetic ? ', synthetic' : ''})`).join('; ')}</dd>
            <dt>Models</dt>
            <dd>{results.models.map((m) => `${m.name} (ran on ${m.provider})`).join('; ')}</dd>
            <dt>Caveats repeated in the summary</dt>
            <dd>{results.warnings.length === 0 ? 'none' : `${results.warnings.length}: ${results.warnings[0]}${results.warnings.length > 1 ? ' …' : ''}`}</dd>
            {status && status.notRun.length > 0 && (
              <>
                <dt>Not run</dt>
                <dd>{status.notRun.map((n) => `${SECTION_SHORT[n.section]}: ${n.reason}`).join('; ')}</dd>
              </>
            )}
          </dl>
        ) : (
          <p>Loading…</p>
        )}
      </section>

      <section className="card" aria-labelledby="identity-heading">
        <h2 id="identity-heading">2. Your identity</h2>
        <p className="hint">The signature names you and your organisation. The key stays on this computer.</p>
        {identities && identities.length > 0 && (
          <div className="field">
            <label htmlFor="identity">Sign as</label>
            <select id="identity" value={identityId} onChange={(e) => setIdentityId(e.target.value)}>
              {identities.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name}, {i.organisation} (fingerprint {i.fingerprint.slice(0, 11)}…)
                </option>
              ))}
            </select>
          </div>
        )}
        {identity?.protection === 'passphrase' && (
          <div className="field">
            <label htmlFor="passphrase">Passphrase of this identity</label>
            <input id="passphrase" type="password" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="current-password" aria-invalid={buildError?.field === 'passphrase' || undefined} />
          </div>
        )}
        {identity && (
          <dl className="facts-list">
            <dt>Your signing key</dt>
            <dd>
              <code className="path">{identity.keyPath}</code>
            </dd>
            <dt>How it is protected</dt>
            <dd>{protectionText(identity)}</dd>
          </dl>
        )}
        <details open={identities?.length === 0}>
          <summary>Create a new identity</summary>
          <form onSubmit={createIdentity} className="stack">
            <div className="grid3">
              <div className="field">
                <label htmlFor="id-name">Your name</label>
                <input id="id-name" value={newName} onChange={(e) => setNewName(e.target.value)} required aria-invalid={idError?.field === 'name' || undefined} />
              </div>
              <div className="field">
                <label htmlFor="id-org">Organisation</label>
                <input id="id-org" value={newOrg} onChange={(e) => setNewOrg(e.target.value)} required aria-invalid={idError?.field === 'organisation' || undefined} />
              </div>
              <div className="field">
                <label htmlFor="id-email">Email (optional)</label>
                <input id="id-email" type="email" value={newEmail} onChange={(e) => setNewEmail(e.target.value)} aria-invalid={idError?.field === 'email' || undefined} />
              </div>
            </div>
            {askPassphrase && (
              <div className="stack" role="group" aria-label="A passphrase for the new key" aria-describedby="new-passphrase-why">
                <p id="new-passphrase-why" className="hint">
                  This computer has no key store Equivox can use, so your signing key will be encrypted with a passphrase you choose. Anyone who has the key file and the passphrase can sign as you. Equivox does not keep the
                  passphrase: you type it each time you sign, and if you forget it you must create a new identity.
                  {!keyStore.passphraseRequired && ' In this browser preview you may leave it empty: the key is then encrypted with a random passphrase kept in a file beside it, so anyone who can read your Equivox data folder can sign as you.'}
                </p>
                <div className="grid3">
                  <div className="field">
                    <label htmlFor="id-passphrase">Passphrase (at least {MIN_PASSPHRASE} characters)</label>
                    <input id="id-passphrase" type="password" autoComplete="new-password" value={newPassphrase} onChange={(e) => setNewPassphrase(e.target.value)} required={keyStore.passphraseRequired} aria-invalid={(idError?.field === 'passphrase' || (passphraseProblem !== null && newPassphrase !== '')) || undefined} />
                  </div>
                  <div className="field">
                    <label htmlFor="id-passphrase2">The same passphrase again</label>
                    <input id="id-passphrase2" type="password" autoComplete="new-password" value={newPassphrase2} onChange={(e) => setNewPassphrase2(e.target.value)} required={keyStore.passphraseRequired} />
                  </div>
                </div>
                {passphraseProblem && (newPassphrase !== '' || newPassphrase2 !== '') && <p className="hint" role="status">{passphraseProblem}</p>}
              </div>
            )}
            <div>
              <button type="submit" disabled={creating || !newName.trim() || !newOrg.trim() || keyStore === null || passphraseProblem !== null}>
                {creating ? 'Creating the identity…' : 'Create identity'}
              </button>
            </div>
          </form>
        </details>
        <ErrorNote error={idError} what="Could not set up the identity:" next="Check the fields above (your entries are kept) and try again." />
      </section>

      <section className="card" aria-labelledby="export-heading">
        <h2 id="export-heading">3. Sign and export</h2>
        <div className="field">
          <label htmlFor="remedial-actions">Remedial actions (optional)</label>
          <textarea id="remedial-actions" rows={3} value={draft.followUp?.remedialActions ?? ''} aria-describedby="remedial-actions-hint" aria-invalid={buildError?.field === 'remedialActions' || undefined} onChange={(e) => setFollowUp({ remedialActions: e.target.value })} />
          <p id="remedial-actions-hint" className="hint">
            What you recommend doing about these findings, in plain words. Printed on the report's “About this audit” page; empty: “not stated”.
          </p>
        </div>
        <div className="field">
          <label htmlFor="reaudit-date">Re-audit date (optional)</label>
          <input id="reaudit-date" type="date" value={draft.followUp?.reauditDate ?? ''} aria-describedby="reaudit-date-hint" aria-invalid={buildError?.field === 'reauditDate' || undefined} onChange={(e) => setFollowUp({ reauditDate: e.target.value })} />
          <p id="reaudit-date-hint" className="hint">
            When the system should be audited again.
          </p>
        </div>
        <PathInput label="Save the report as" purpose="save-pdf" value={out} onChange={setOut} hint="A PDF file on this computer, in the project's reports folder unless you choose another; the data files go into a folder next to it." invalid={buildError?.field === 'out'} />
        {nothing && (
          <div className="error-note" role="status">
            <p>
              <strong>No section of this audit produced results, so there is nothing to report.</strong> Go back to the Plan step, fix what each section needs and run the audit again.
            </p>
          </div>
        )}
        {incomplete && !nothing && (
          <div className="warn-box" role="group" aria-labelledby="incomplete-heading">
            <p id="incomplete-heading">
              <strong>This audit is incomplete: {completenessText(status)}.</strong> Not run: {status.notRun.map((n) => `${SECTION_SHORT[n.section]} (${n.reason})`).join('; ')}.
            </p>
            <div className="choice">
              <input type="checkbox" id="confirm-incomplete" checked={confirmIncomplete} onChange={(e) => setConfirmIncomplete(e.target.checked)} />
              <label htmlFor="confirm-incomplete">Sign a report of the incomplete audit anyway: its cover will say “Incomplete audit” and name what did not run</label>
            </div>
          </div>
        )}
        <div className="row">
          <button type="button" className="primary" onClick={() => void build()} disabled={building || !identity || (identity.protection === 'passphrase' && !passphrase) || !out.trim() || !results || nothing || (incomplete && !confirmIncomplete)}>
            {building ? 'Signing…' : 'Sign and export the report'}
          </button>
          {!identity && <span className="hint">Choose or create an identity first.</span>}
        </div>
        <ErrorNote
          error={buildError}
          what="The report could not be built:"
          next="Check the file name and identity above (nothing was lost); to save elsewhere press “Choose folder…”, then try again."
          onRetry={() => void build()}
          retrying={building}
        />
        {built && (
          <div className="ok-box" role="status">
            <p>
              <strong>Report signed and saved</strong>
              {built.pages ? ` (${built.pages} pages)` : ''}: <code className="path">{built.path}</code>
            </p>
            <p>
              Signed by {built.signer}. File fingerprint (SHA-256): <code className="hash">{built.sha256}</code>
            </p>
            <p>Data files: {built.exports.length} in <code className="path">{built.exportsDir}</code></p>
            {built.reportId && <ReportActions projectId={project.id} report={{ id: built.reportId, path: built.path }} companions={{ statementPath: built.statementPath, exports: built.exports }} onVerify={(path) => nav.go({ name: 'verify', path })} />}
          </div>
        )}
      </section>

      <section className="card" aria-labelledby="verify-heading">
        <h2 id="verify-heading">4. Verify</h2>
        <p className="hint">Checks the signature the way a reader of the report would: that the file is complete, unchanged and signed by the named identity.</p>
        <button type="button" onClick={() => void verify()} disabled={!built}>
          Verify the report
        </button>
        <ErrorNote error={verifyError} what="Could not verify the report:" next="Check that the file is still where it was saved, then try again." />
        {verification && <VerificationResult v={verification} />}
      </section>
      {verification?.valid && (
        <button type="button" onClick={onDone}>
          Back to the project
        </button>
      )}
    </div>
  );
}
