import type { Api } from '../api';
import { CliResult, UsageError, type CliCommand } from './args';

/** Signed reports and auditor identities. */
export function reportCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['report', 'build'],
      usage: 'report build (--project DIR --run ID | --results FILE.json) --out FILE.pdf [--identity ID] [--passphrase P] [--auditor NAME] [--organisation ORG] [--allow-incomplete]   (--allow-incomplete: sign even though a planned section did not run; the cover says so)',
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
          allowIncomplete: o.flag('allow-incomplete'),
        };
        o.assertNoUnknown();
        if (input.resultsPath === undefined && (input.project === undefined || input.auditId === undefined)) throw new UsageError('give --project DIR and --run ID, or --results FILE.json');
        const built = await api().invoke('reports.build', input);
        ctx.log(`wrote ${built.path} (signed by ${built.signer}), ${built.statementPath} and ${built.exports.length} export files in ${built.exportsDir}`);
        return built;
      },
    },
    {
      path: ['report', 'verify'],
      usage: 'report verify FILE.pdf   (exit 0 when the signature is valid, 1 otherwise)',
      run: async (o, positionals) => {
        o.assertNoUnknown();
        const path = positionals[0];
        if (!path) throw new UsageError('report verify needs the PDF file');
        const result = await api().invoke('reports.verify', { path });
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
      path: ['identity', 'list'],
      usage: 'identity list',
      run: async (o) => {
        o.assertNoUnknown();
        return api().invoke('identities.list', {});
      },
    },
  ];
}
