// Provider: sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442 (nodegroup/node_group.go, provider/provier.go).
import { describe, expect, it } from 'vitest';
import {
  parseCloudConfig,
  parseExternalGrpcConfig,
  REDACTED,
  scrubExternalGrpcCredentials,
} from '../../../../src/providers/externalgrpc/config.js';
import type { ExternalGrpcConfigInput } from '../../../../src/model/externalgrpc.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FILE_TEXT, STATUS_TEXT } from '../../../fixtures/externalgrpc/load.js';

const MANIFEST_TEXT = readFileSync(fileURLToPath(new URL('../../../fixtures/externalgrpc/nodegroup-status-configmap.yaml', import.meta.url)), 'utf8');

const SECRETS = ['AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY', 'Wr0ng-Place-For-A-Passw0rd'];
const CM = { kind: 'configmap', namespace: 'kube-system', name: 'nodegroup-status' } as const;
const FILE = { kind: 'file', path: '/opt/nodegroup-config.yaml' } as const;

function cm(text: string): ExternalGrpcConfigInput {
  return { source: CM, text };
}
function file(text: string): ExternalGrpcConfigInput {
  return { source: FILE, text };
}

describe('scrubExternalGrpcCredentials', () => {
  it.each([
    ['the ConfigMap the provider writes (accounts)', STATUS_TEXT],
    ['the shipped-style file (legacy cloudProviderOption.<provider>)', FILE_TEXT],
    ['a whole `kubectl get cm -o yaml` manifest (secrets inside the block scalar)', MANIFEST_TEXT],
    ['flow style', 'cloudProviderOption: {accounts: {tencentcloud: {ops-prod: {secretId: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE, secretKey: "Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY"}}}}\n'],
    ['an alias pointing at a value defined elsewhere', 'x: &k Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY\ncloudProviderOption:\n  accounts:\n    tc:\n      a:\n        secretId: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE\n        secretKey: *k\n'],
    ['a block scalar', 'cloudProviderOption:\n  accounts:\n    tc:\n      a:\n        secretKey: |\n          Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY\n        secretId: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE\n'],
    ['malformed YAML (line fallback)', 'cloudProviderOption:\n  accounts:\n    tc:\n      a:\n        secretId: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE\n        secretKey: |\n          Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY\n  bad: [unclosed\n'],
  ])('leaves no secret anywhere in %s', (_name, text) => {
    const r = scrubExternalGrpcCredentials(text);
    for (const s of SECRETS) expect(r.text).not.toContain(s);
    expect(r.text).toContain(REDACTED);
    expect(r.paths.length).toBeGreaterThan(0);
  });

  it('names the credential paths and keeps every other byte', () => {
    const r = scrubExternalGrpcCredentials(STATUS_TEXT);
    expect(r.paths).toEqual([
      'cloudProviderOption.accounts.tencentcloud.ops-prod.secretId',
      'cloudProviderOption.accounts.tencentcloud.ops-prod.secretKey',
      'cloudProviderOption.instanceParameter.tencentcloud_guangzhou6_10-20-x.parameter.LoginSettings.Password',
    ]);
    const rest = (t: string) => t.split('\n').filter((l) => !/secretId|secretKey|Password/.test(l));
    expect(rest(r.text)).toEqual(rest(STATUS_TEXT));
  });

  it('treats every leaf under the legacy cloudProviderOption.<provider> block as a credential', () => {
    const r = scrubExternalGrpcCredentials('cloudProviderOption:\n  tencentcloud:\n    zhansan:\n      id: "XXX"\n      key: "YYY"\n');
    expect(r.paths).toEqual(['cloudProviderOption.tencentcloud.zhansan.id', 'cloudProviderOption.tencentcloud.zhansan.key']);
    expect(r.text).not.toMatch(/XXX|YYY/);
  });

  it('keeps the document whole around a block-scalar credential: the next key stays on its own line and the groups parse', () => {
    const text =
      'cloudProviderOption:\n  accounts:\n    tc:\n      a:\n        token: |\n          Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY\n        secretId: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE\nnodeGroups:\n  - id: general\n    minSize: 1\n    maxSize: 3\n    targetSize: 1\n';
    const r = scrubExternalGrpcCredentials(text);
    expect(r.text).toBe(
      'cloudProviderOption:\n  accounts:\n    tc:\n      a:\n        token: "<redacted>"\n        secretId: "<redacted>"\nnodeGroups:\n  - id: general\n    minSize: 1\n    maxSize: 3\n    targetSize: 1\n',
    );
    const cfg = parseExternalGrpcConfig([cm(text)]);
    // parsed as the provider parses it (its only problem is the test group's missing nodeTemplate), not "malformed YAML"
    expect(cfg.problems.map((p) => p.path)).toEqual(['nodeGroups[0].nodeTemplate']);
    expect(cfg.nodeGroups.map((g) => g.id)).toEqual(['general', 'default']);
  });

  it("drops every comment's text (a key left in a comment) but not a '#' inside a value, and redacts a CVM's UserData", () => {
    const text =
      '# old secretKey Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY\ncloudProviderOption:\n  instanceParameter:\n    p:\n      parameter:\n        UserData: IyEvYmluL2Jhc2gKa3ViZWFkbSBqb2lu  # join token inside\n        InstanceName: "node # 1"\nnodeGroups: []\n';
    const r = scrubExternalGrpcCredentials(text);
    expect(r.text).toBe('#\ncloudProviderOption:\n  instanceParameter:\n    p:\n      parameter:\n        UserData: "<redacted>"  #\n        InstanceName: "node # 1"\nnodeGroups: []\n');
    expect(r.paths).toEqual(['cloudProviderOption.instanceParameter.p.parameter.UserData']);
  });

  it('redacts nothing in a config without credentials', () => {
    const text = 'nodeGroups:\n- id: a\n  minSize: 0\n';
    expect(scrubExternalGrpcCredentials(text)).toEqual({ text, paths: [] });
  });
});

describe('parseExternalGrpcConfig: which input the provider loads (loadNodeGroups l.1377-1400)', () => {
  it('loads the ConfigMap when it exists and is non-empty, and reports the file differs', () => {
    const c = parseExternalGrpcConfig([file(FILE_TEXT), { ...cm(STATUS_TEXT), lastUpdated: '2026-11-24T17:58:41+08:00' }]);
    expect(c.used).toEqual(CM);
    expect(c.usedDescription).toBe('ConfigMap kube-system/nodegroup-status');
    expect(c.lastUpdated).toBe('2026-11-24T17:58:41+08:00');
    expect(c.nodeGroups.map((g) => g.id)).toEqual(['master', 'worker-addons', 'general', 'gpu-a100', 'default']);
    expect(c.fileDiffersFromConfigMap).toBe(true);
    expect(c.fileDifferences).toEqual(
      expect.arrayContaining([
        'group "general" maxSize differs',
        'group "gpu-a100" is only in the ConfigMap',
        'group "default" is only in the ConfigMap',
      ]),
    );
  });

  it('loads the file when the ConfigMap\'s NodeGroupsConfig is empty', () => {
    const c = parseExternalGrpcConfig([cm(''), file(FILE_TEXT)]);
    expect(c.used).toEqual(FILE);
    expect(c.usedReason).toMatch(/empty/);
    // the provider appends its catch-all group (l.1404-1428)
    expect(c.nodeGroups.map((g) => g.id)).toEqual(['master', 'worker-addons', 'general', 'default']);
    const def = c.nodeGroups[3];
    expect(def).toMatchObject({ minSize: 0, maxSize: 1000, instanceParameter: '', implicit: true });
    expect(def.nodeTemplate?.capacity).toEqual({ cpu: '8', memory: '16G', 'ephemeral-storage': '200G' });
    expect(c.fileDiffersFromConfigMap).toBeUndefined();
  });

  it('does not fall back to the file when the ConfigMap does not parse: the provider exits', () => {
    const c = parseExternalGrpcConfig([cm('nodeGroups: [unclosed'), file(FILE_TEXT)]);
    expect(c.used).toEqual(CM);
    expect(c.nodeGroups).toEqual([]);
    expect(c.problems[0]).toMatchObject({ fatal: true, path: '' });
  });

  it('reports nothing used when neither input is present', () => {
    const c = parseExternalGrpcConfig([]);
    expect(c.used).toBeUndefined();
    expect(c.nodeGroups).toEqual([]);
  });
});

describe('parseExternalGrpcConfig: decoding as the provider does', () => {
  it('reads the ConfigMap\'s durations (40m0s) and records which options were present', () => {
    const c = parseExternalGrpcConfig([cm(STATUS_TEXT)]);
    const general = c.nodeGroups.find((g) => g.id === 'general');
    expect(general?.autoscalingOptions).toEqual({
      scaleDownUtilizationThreshold: 0.5,
      scaleDownGpuUtilizationThreshold: 0.5,
      scaleDownUnneededTimeMs: 2_400_000,
      scaleDownUnreadyTimeMs: 600_000,
      present: ['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnneededTime', 'scaleDownUnreadyTime'],
    });
    const gpu = c.nodeGroups.find((g) => g.id === 'gpu-a100');
    expect(gpu?.autoscalingOptions?.present).toEqual(['scaleDownUnneededTime']);
    expect(gpu?.autoscalingOptions?.scaleDownUtilizationThreshold).toBe(0);
    // `autoscalingOptions: null` is a nil pointer
    expect(c.nodeGroups[0].autoscalingOptions).toBeUndefined();
  });

  it('keeps instance records as written, including the Pending record without providerID', () => {
    const c = parseExternalGrpcConfig([cm(STATUS_TEXT)]);
    const general = c.nodeGroups.find((g) => g.id === 'general');
    expect(general?.instances.map((i) => `${i.id}:${i.stage}/${i.status}`)).toEqual([
      'k3v9xq2m:Running/Success',
      'h6te0w3r:Running/Success',
      'p0w8zn4c:Created/Failed',
      's5ny2c8v:Joined/InProcess',
      'a1b2c3d4:Pending/Failed',
      '6ddb4200:Deleted/Success',
    ]);
    expect(general?.instances[4]).toMatchObject({ providerID: '', name: '', updateTime: '2026-11-24T17:52:18.641097225+08:00' });
  });

  it.each([
    ['an integer duration in the ConfigMap is fatal (yaml.v3 takes only strings)', cm, '600', true, 0],
    ['an integer duration in the file is nanoseconds (mapstructure, weakly typed)', file, '600000000000', false, 600_000],
    ['a string duration parses in both', cm, '"10m"', false, 600_000],
    ['a malformed duration is fatal', file, '"10 minutes"', true, 0],
  ])('%s', (_n, mk, value, fatal, ms) => {
    const text = `nodeGroups:\n- id: g\n  autoscalingOptions:\n    scaleDownUnreadyTime: ${value}\n  nodeTemplate:\n    labels: {a: b}\n`;
    const c = parseExternalGrpcConfig([mk(text)]);
    expect(c.problems.some((p) => p.fatal && p.path === 'nodeGroups[0].autoscalingOptions.scaleDownUnreadyTime')).toBe(fatal);
    if (!fatal) expect(c.nodeGroups[0].autoscalingOptions?.scaleDownUnreadyTimeMs).toBe(ms);
  });

  it('ignores a mis-cased key in the ConfigMap (yaml.v3 is exact) but reads it from the file (mapstructure is not)', () => {
    const text = 'nodeGroups:\n- id: g\n  maxsize: 7\n  nodeTemplate:\n    labels: {a: b}\n';
    const fromCm = parseExternalGrpcConfig([cm(text)]);
    expect(fromCm.nodeGroups[0].maxSize).toBe(0);
    expect(fromCm.problems).toContainEqual(expect.objectContaining({ path: 'nodeGroups[0].maxsize', fatal: false }));
    expect(parseExternalGrpcConfig([file(text)]).nodeGroups[0].maxSize).toBe(7);
  });

  it('flags a group without nodeTemplate as a crash and a missing instanceParameter reference', () => {
    const c = parseExternalGrpcConfig([cm('nodeGroups:\n- id: g\n  maxSize: 3\n  instanceParameter: nope\n')]);
    expect(c.problems).toContainEqual(expect.objectContaining({ path: 'nodeGroups[0].nodeTemplate', fatal: true }));
    expect(c.problems).toContainEqual(
      expect.objectContaining({ path: 'nodeGroups[0].instanceParameter', message: expect.stringContaining('InstanceParameter[nope] not exist') }),
    );
  });

  it('keeps the first of two groups with one id (nodeGroupCache.add)', () => {
    const c = parseExternalGrpcConfig([cm('nodeGroups:\n- id: g\n  maxSize: 3\n  nodeTemplate: {}\n- id: g\n  maxSize: 9\n  nodeTemplate: {}\n')]);
    expect(c.nodeGroups.filter((g) => g.id === 'g').map((g) => g.maxSize)).toEqual([3]);
  });

  it('warns that viper lower-cases an upper-case instanceParameter name read from the file', () => {
    const text =
      'cloudProviderOption:\n  instanceParameter:\n    GZ6-Workers:\n      providerIdTemplate: "externalgrpc://tencentcloud/a/ap-guangzhou/{{InstanceID}}"\nnodeGroups:\n- id: g\n  instanceParameter: GZ6-Workers\n  nodeTemplate: {}\n';
    const c = parseExternalGrpcConfig([file(text)]);
    expect(Object.keys(c.instanceParameters)).toEqual(['gz6-workers']);
    expect(c.problems.map((p) => p.path)).toEqual(
      expect.arrayContaining(['cloudProviderOption.instanceParameter.GZ6-Workers', 'nodeGroups[0].instanceParameter']),
    );
  });
});

describe('parseExternalGrpcConfig: accounts (G9) and credentials (G8)', () => {
  it.each([
    ['the README layout is legacy', FILE_TEXT, 'legacy', [], ['tencentcloud']],
    ['the provider-written ConfigMap uses accounts', STATUS_TEXT, 'accounts', ['tencentcloud/ops-prod'], []],
  ] as const)('%s', (_n, text, location, accounts, legacy) => {
    const c = parseExternalGrpcConfig([file(text)]);
    expect(c.accountsLocation).toBe(location);
    expect(c.accounts).toEqual(accounts);
    expect(c.legacyAccountProviders).toEqual(legacy);
  });

  it('lists credential paths per source even after scrubbing', () => {
    const scrubbed = scrubExternalGrpcCredentials(STATUS_TEXT).text;
    const c = parseExternalGrpcConfig([cm(scrubbed)]);
    expect(c.credentialPaths.map((p) => `${p.source}: ${p.path}`)).toContain(
      'ConfigMap kube-system/nodegroup-status: cloudProviderOption.accounts.tencentcloud.ops-prod.secretKey',
    );
  });
});

describe('parseCloudConfig (CA externalgrpc_cloud_provider.go cloudConfig)', () => {
  it.each([
    ['the seed\'s insecure config', 'address: "cluster-autoscaler-grpc-cloud-provider-service:8086"\nkey: ""\ncert: ""\ncacert: ""', undefined, { address: 'cluster-autoscaler-grpc-cloud-provider-service:8086', tls: false, grpcTimeoutMs: 5000 }, []],
    ['mTLS with a timeout', 'address: "[fd00::1]:8086"\nkey: /etc/ca/tls.key\ncert: /etc/ca/tls.crt\ncacert: /etc/ca/ca.crt\ngrpc_timeout: 10s', 35, { tls: true, keyPresent: true, cacertPresent: true, grpcTimeoutMs: 10_000 }, []],
    ['a bare host', 'address: provider', undefined, { address: 'provider' }, ['failed to parse address']],
    ['cert without key', 'address: a:1\ncert: /c.crt\ncacert: /ca.crt', undefined, { tls: true }, ['key is empty']],
    ['a numeric grpc_timeout', 'address: a:1\ngrpc_timeout: 10', 30, { grpcTimeoutMs: 5000 }, ['must be a duration string']],
    ['grpc_timeout on CA 1.28', 'address: a:1\ngrpc_timeout: 30s', 28, { grpcTimeoutMs: 5000 }, ['ignored by CA 1.28']],
  ])('%s', (_n, text, minor, expected, problems) => {
    const c = parseCloudConfig(text, minor);
    expect(c).toMatchObject(expected);
    expect(c.problems.length).toBe(problems.length);
    problems.forEach((p, i) => expect(c.problems[i]).toContain(p));
  });
});
