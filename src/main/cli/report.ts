import type { Api } from '../api';
import type { ReportVerification } from '../../shared/api/reports';
import { UserError } from '../../shared/errors';
import { CliResult, UsageError, type CliCommand } from './args';

/** `report verify`'s one line on stderr: the verdict first, then who signed and why not when it fails. */
export function verdictLine(v: ReportVerification): string {
  if (v.signed === null) return `NOT VALID: ${v.problems[0] ?? 'the file cannot be read as a PDF'}`;
  if (v.signed === false) return 'NOT VALID: not a signed Equivox report (the PDF holds no signature)';
  if (!v.valid) {
    const failed = (v.checks ?? []).filter((c) => !c.passed);
    const first = failed[0]?.text ?? v.problems[0] ?? 'the signature does not verify';
    const more = Math.max(failed.length, v.problems.length) - 1;
    return `NOT VALID: ${first.replace(/\.$/, '')}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'}; see "problems" in the JSON)` : ''}`;
  }
  const who = `signed by ${v.signer ?? 'an unnamed signer'} (certificate fingerprint ${v.fingerprint ?? 'unknown'})${v.signedAt ? ` at ${v.signedAt}` : ''}`;
  return v.trusted ? `VALID and TRUSTED: unchanged since it was ${who}` : `VALID but NOT TRUSTED: unchanged since it was ${who}, a certificate this computer does not trust`;
}

/** Signed reports and auditor identities. */
export function reportCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['report', 'build'],
      usage: 'report build (--project DIR --run ID | --results FILE.json) --out FILE.pdf [--identity ID] [--passphrase P] [--auditor NAME] [--organisation ORG] [--remedial-actions TEXT] [--reaudit-date YYYY-MM-DD] [--allow-incomplete]   (--allow-incomplete: sign even though a planned section did not run; the cover says so)',
      run: async (o, _p, ctx) => {
        const input = {
          project: o.string('project'),
          auditId: o.string('run'),
          resultsPath: o.string('results'),
          out: o.requireString('out'),
          identityId: o.string('identity'),
          passphrase: o.string('passphrase'),
          auditor: o.string('auditor'),
          organisation: o.string('organisation'),
          remedialActions: o.string('remedial-actions'),
          reauditDate: o.string('reaudit-date'),
          allowIncomplete: o.flag('allow-incomplete'),
        };
        o.assertNoUnknown();
        if (input.resultsPath === undefined && (input.project === undefined || input.auditId === undefined)) throw new UsageError('give --project DIR and --run ID, or --results FILE.json');
        const built = await api().invoke('reports.build', input);
        ctx.log(`wrote ${built.path} (signed by ${built.signer}), ${built.statementPath}, ${built.attestationPath} and ${built.exports.length} export files in ${built.exportsDir}`);
        return built;
      },
    },
    {
      path: ['report', 'verify'],
      usage: 'report verify FILE.pdf [--require-trusted]   (the verdict in one line on stderr, the details as JSON on stdout; exit 0 when the signature is valid, 1 otherwise; with --require-trusted also 1 when the signer is not a trusted identity)',
      run: async (o, positionals, ctx) => {
        const requireTrusted = o.flag('require-trusted');
        o.assertNoUnknown();
        const path = positionals[0];
        if (!path) throw new UsageError('report verify needs the PDF file');
        const result = await api().invoke('reports.verify', { path });
        ctx.log(verdictLine(result));
        if (result.trustNote) ctx.log(`warning: ${result.trustNote}`);
        const ok = result.valid && (!requireTrusted || result.trusted);
        if (result.valid && requireTrusted && !result.trusted) ctx.log('not trusted: --require-trusted was given and the signer is not one of this computer\'s trusted identities');
        return new CliResult(result, ok ? 0 : 1);
      },
    },
    {
      path: ['report', 'extract'],
      usage: 'report extract FILE.pdf --out DIR   (write the files attached inside the report: results.json, the locked plan, the statement, the report-data CSVs; exit 1 when the report does not verify, the files are written anyway)',
      run: async (o, positionals, ctx) => {
        const out = o.requireString('out');
        o.assertNoUnknown();
        const path = positionals[0];
        if (!path) throw new UsageError('report extract needs the PDF file');
        const result = await api().invoke('reports.extract', { path, out });
        ctx.log(`wrote ${result.files.length} files into ${result.out}`);
        if (!result.valid) ctx.log(`the report does not verify: ${result.problems.join('; ')}`);
        return new CliResult(result, result.valid ? 0 : 1);
      },
    },
    {
      path: ['identity', 'create'],
      usage: 'identity create --name NAME --org ORGANISATION [--email EMAIL] [--passphrase P]',
      run: async (o, _p, ctx) => {
        const input = { name: o.requireString('name'), organisation: o.requireString('org'), email: o.string('email'), passphrase: o.string('passphrase') };
        o.assertNoUnknown();
        const info = await api().invoke('identities.create', input);
        if (info.protection === 'passphrase-file') ctx.log('no passphrase given: the key is encrypted with a random passphrase kept in a 0600 file beside it in the data folder');
        return info;
      },
    },
    {
      path: ['identity', 'import'],
      usage: 'identity import --p12 FILE [--passphrase P12_PASSPHRASE] [--key-passphrase P]',
      run: async (o) => {
        const input = { p12Path: o.requireString('p12'), p12Passphrase: o.string('passphrase'), passphrase: o.string('key-passphrase') };
        o.assertNoUnknown();
        return api().invoke('identities.import', input);
      },
    },
    {
      path: ['identity', 'trust'],
      usage: "identity trust (--cert FILE | --report FILE.pdf [--fingerprint HEX])   (trust another auditor's certificate for report verify: from a certificate file, or the one that signed a report once you confirm its fingerprint with the auditor by phone or in person; asked at the terminal, else give --fingerprint)",
      run: async (o, _p, ctx) => {
        const certPath = o.string('cert');
        const report = o.string('report');
        const fingerprint = o.string('fingerprint');
        o.assertNoUnknown();
        if ((certPath === undefined) === (report === undefined)) throw new UsageError('give --cert FILE or --report FILE.pdf (one of them)');
        if (certPath !== undefined) {
          if (fingerprint !== undefined) throw new UsageError('--fingerprint goes with --report');
          const info = await api().invoke('identities.trust', { certPath });
          ctx.log(`trusted ${info.name}${info.organisation ? `, ${info.organisation}` : ''} with fingerprint ${info.fingerprint}: make sure the signer confirmed this fingerprint`);
          return info;
        }
        const v = await api().invoke('reports.verify', { path: report! });
        ctx.log(verdictLine(v));
        if (!v.valid) throw new UserError(`${report} does not verify, so the certificate in it cannot be trusted: ask the auditor for the original file`, 'path');
        const c = v.certificate;
        ctx.log(`the certificate that signed it: ${c ? `${c.subject}, issued by ${c.selfSigned ? 'itself (self-signed: only the auditor can vouch for it)' : c.issuer}, valid ${c.notBefore.slice(0, 10)} to ${c.notAfter.slice(0, 10)}` : v.signer ?? 'unknown'}`);
        ctx.log(`SHA-256 fingerprint: ${v.fingerprint}`);
        if (v.trusted) {
          ctx.log('this certificate is already trusted on this computer; nothing to do');
          return (await api().invoke('identities.trusted', {})).find((t) => t.fingerprint === v.fingerprint);
        }
        ctx.log('Compare it with the fingerprint the auditor gives you by another channel (phone, in person, a message you trust), not one written in the report or in an e-mail that came with it.');
        const given = fingerprint ?? (await ctx.ask?.('Type the fingerprint the auditor gave you (or press Enter to stop): ')) ?? null;
        if (given === null) throw new UsageError('this is not an interactive terminal: give --fingerprint HEX, the fingerprint the auditor gave you');
        if (given.trim() === '') throw new UserError('nothing was trusted: no fingerprint was typed', 'fingerprint');
        const info = await api().invoke('identities.trustReport', { path: report!, fingerprint: given });
        ctx.log(`the fingerprints match: trusted ${info.name}${info.organisation ? `, ${info.organisation}` : ''}; reports signed with this certificate now verify as trusted on this computer`);
        return info;
      },
    },
    {
      path: ['identity', 'trusted'],
      usage: 'identity trusted   (the certificates report verify trusts)',
      run: async (o) => {
        o.assertNoUnknown();
        return api().invoke('identities.trusted', {});
      },
    },
    {
      path: ['identity', 'list'],
      usage: 'identity list',
      run: async (o) => {
        o.assertNoUnknown();
        return api().invoke('identities.list', {});
      },
    },
  ];
}
