import type { Api } from '../api';
import { CliResult, UsageError, type CliCommand } from './args';

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
      usage: 'report verify FILE.pdf [--require-trusted]   (exit 0 when the signature is valid, 1 otherwise; with --require-trusted also 1 when the signer is not a trusted identity)',
      run: async (o, positionals, ctx) => {
        const requireTrusted = o.flag('require-trusted');
        o.assertNoUnknown();
        const path = positionals[0];
        if (!path) throw new UsageError('report verify needs the PDF file');
        const result = await api().invoke('reports.verify', { path });
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
      usage: "identity trust --cert FILE   (trust another auditor's certificate for report verify; check its fingerprint with them first)",
      run: async (o, _p, ctx) => {
        const certPath = o.requireString('cert');
        o.assertNoUnknown();
        const info = await api().invoke('identities.trust', { certPath });
        ctx.log(`trusted ${info.name}${info.organisation ? `, ${info.organisation}` : ''} with fingerprint ${info.fingerprint}: make sure the signer confirmed this fingerprint`);
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
