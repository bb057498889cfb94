import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/gather/redact.js';
import type { Node, Pod } from '../../src/model/k8s.js';

const SALT = 'unit-test-salt';

describe('Redactor', () => {
  it('gives the same pseudonym for the same value and salt, and another one for another salt', () => {
    const a = new Redactor(SALT);
    const b = new Redactor(SALT);
    const c = new Redactor('another-salt');
    const s = 'node ip-10-0-14-37.ec2.internal (10.0.14.37), instance i-0a1b2c3d4e5f60718, account 111122223333';
    b.learn({ autoScalingGroups: [{ AutoScalingGroupName: 'g', AutoScalingGroupARN: 'arn:aws:autoscaling:us-east-1:111122223333:x', MinSize: 0, MaxSize: 1, DesiredCapacity: 0 }] });
    a.learn({ autoScalingGroups: [{ AutoScalingGroupName: 'g', AutoScalingGroupARN: 'arn:aws:autoscaling:us-east-1:111122223333:x', MinSize: 0, MaxSize: 1, DesiredCapacity: 0 }] });
    expect(a.redactString(s)).toBe(b.redactString(s));
    expect(c.redactString(s)).not.toBe(a.redactString(s));
    expect(a.redactString(s)).toBe(a.redactString(s));
  });

  it('keeps the shape of each value: EC2 host names, IPs, instance ids, account ids, ARNs', () => {
    const r = new Redactor(SALT);
    r.learn({ images: [{ ImageId: 'ami-1', OwnerId: '111122223333' }] });
    const ip = r.redactString('10.0.14.37');
    expect(ip).toMatch(/^10\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    expect(r.redactString('ip-10-0-14-37.ec2.internal')).toBe(`ip-${ip.replaceAll('.', '-')}.ec2.internal`);
    expect(r.redactString('ip-10-0-14-37.us-west-2.compute.internal')).toBe(
      `ip-${ip.replaceAll('.', '-')}.us-west-2.compute.internal`,
    );
    expect(r.redactString('aws:///us-east-1a/i-0a1b2c3d4e5f60718')).toMatch(/^aws:\/\/\/us-east-1a\/i-[0-9a-f]{17}$/);
    expect(r.redactString('i-12345678')).toMatch(/^i-[0-9a-f]{8}$/);
    expect(r.redactString('111122223333')).toMatch(/^\d{12}$/);
    expect(r.redactString('111122223333')).not.toBe('111122223333');
    expect(r.redactString('111122223333.dkr.ecr.us-east-1.amazonaws.com/api:1.0')).toMatch(
      /^\d{12}\.dkr\.ecr\.us-east-1\.amazonaws\.com\/api:1\.0$/,
    );
    const role = r.redactString('arn:aws:iam::111122223333:role/demo-cluster-autoscaler');
    expect(role).toMatch(/^arn:aws:iam::\d{12}:role\/redacted-[0-9a-f]{12}$/);
    expect(role).toContain(`::${r.redactString('111122223333')}:`);
    expect(
      r.redactString(
        'arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:1932117a-e597-49fe-b96e-0c402e75e08d:autoScalingGroupName/demo-stateful',
      ),
    ).toMatch(/^arn:aws:autoscaling:us-east-1:\d{12}:autoScalingGroup:redacted-[0-9a-f]{12}$/);
  });

  it('leaves alone what identifies nobody: AWS-managed ARNs, wildcard and loopback addresses, public hosts, versions', () => {
    const r = new Redactor(SALT);
    for (const s of [
      'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
      '0.0.0.0',
      '127.0.0.1',
      '169.254.169.254',
      '::1',
      'v1.31.4-eks-1234567',
      'https://sts.us-east-1.amazonaws.com',
      'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
      '2026-11-21T09:59:52Z',
      '09:59:52.118246319 +0000 UTC',
      'sha256:a025cecc34368428e72a40a79fe5a5bf3e981189b615bacd3621edaa197e41e2',
      '0/11 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}.',
    ]) {
      expect(r.redactString(s), s).toBe(s);
    }
  });

  it('replaces subnet, VPC, security-group, AMI, launch-template and volume ids, keeping prefix and length', () => {
    const r = new Redactor(SALT);
    for (const id of [
      'subnet-0a1b2c3d4e5f60718',
      'vpc-0fedcba9876543210',
      'sg-01234567',
      'ami-0123456789abcdef0',
      'lt-0abcdef1234567890',
      'vol-0123456789abcdef0',
    ]) {
      const p = r.redactString(id);
      const prefix = id.slice(0, id.indexOf('-') + 1);
      expect(p, id).not.toBe(id);
      expect(p.startsWith(prefix) && p.length === id.length, p).toBe(true);
      expect(r.redactString(`ASG uses ${id},subnet-0b1b2c3d4e5f60718`)).toContain(p);
    }
    expect(r.redactString('subnet-0a1b2c3d4e5f60718')).toBe(r.redactString('subnet-0a1b2c3d4e5f60718'));
  });

  it("replaces Tencent Cloud instance, VPC, subnet and image ids (the externalgrpc provider's), keeping prefix and length", () => {
    const r = new Redactor(SALT);
    for (const id of ['ins-025ce74c', 'vpc-8ek64x3d', 'subnet-2q4wz7lh', 'img-9qrfy1xt', 'img-gpu22x8k']) {
      const p = r.redactString(id);
      expect(p, id).not.toBe(id);
      expect(p).toMatch(new RegExp(`^${id.slice(0, id.indexOf('-'))}-[0-9a-f]{8}$`));
      expect(r.redactString(`externalgrpc://tencentcloud/ops/ap-beijing/${id}`)).toBe(`externalgrpc://tencentcloud/ops/ap-beijing/${p}`);
    }
    // words of the same shape without a digit are not ids
    for (const s of ['img-registry', 'subnet-selector', 'ins-abcdefgh']) expect(r.redactString(s), s).toBe(s);
  });

  it('replaces object UIDs and node systemUUID, bootID and machineID consistently, keeping their shape', () => {
    const r = new Redactor(SALT);
    const uid = '1932117a-e597-49fe-b96e-0c402e75e08d';
    const node = {
      metadata: { uid },
      status: {
        nodeInfo: {
          machineID: 'ec2a4a5c0c1b6b5f4f2f0b0e1d7d6c3a',
          systemUUID: 'EC2A4A5C-0C1B-6B5F-4F2F-0B0E1D7D6C3A',
          bootID: '5f1c9c0e-6c38-4d8c-9e63-3b6a0c0d4e21',
          kubeletVersion: 'v1.31.4-eks-1234567',
        },
      },
    };
    const out = r.redactValue(node);
    expect(out.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(out.metadata.uid).not.toBe(uid);
    expect(r.redactValue({ ownerReferences: [{ uid }] }).ownerReferences[0].uid).toBe(out.metadata.uid);
    expect(out.status.nodeInfo.machineID).toMatch(/^[0-9a-f]{32}$/);
    expect(out.status.nodeInfo.machineID).not.toBe(node.status.nodeInfo.machineID);
    expect(out.status.nodeInfo.systemUUID).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(out.status.nodeInfo.systemUUID).not.toBe(node.status.nodeInfo.systemUUID);
    expect(out.status.nodeInfo.bootID).not.toBe(node.status.nodeInfo.bootID);
    expect(out.status.nodeInfo.kubeletVersion).toBe('v1.31.4-eks-1234567');
  });

  it('replaces the EKS OIDC issuer id with the pseudonym of the endpoint id (they are the same id)', () => {
    const r = new Redactor(SALT);
    const id = '0123456789ABCDEF0123456789ABCDEF';
    const issuer = r.redactString(`https://oidc.eks.us-east-1.amazonaws.com/id/${id}`);
    expect(issuer).not.toContain(id);
    const endpoint = r.redactString(`https://${id}.gr7.us-east-1.eks.amazonaws.com`);
    expect(issuer).toBe(`https://oidc.eks.us-east-1.amazonaws.com/id/${endpoint.slice(8, 40)}`);
    expect(r.redactString(`arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/${id}`)).not.toContain(id);
  });

  it('replaces host names in URLs and private image registries, and keeps public ones', () => {
    const r = new Redactor(SALT);
    const url = r.redactString('proxy at http://proxy.corp.acme.net:3128 and https://vault.internal.acme.io/v1');
    expect(url).not.toContain('proxy.corp');
    expect(url).not.toContain('acme.io');
    expect(url).toMatch(/^proxy at http:\/\/host-[0-9a-f]{10}\.redacted\.invalid:3128 and https:\/\/host-[0-9a-f]{10}\.redacted\.invalid\/v1$/);
    const out = r.redactValue({
      containers: [
        { image: 'registry.acme.io:5000/team/cluster-autoscaler:v1.32.1' },
        { image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1' },
      ],
    });
    expect(out.containers[0].image).toMatch(/^host-[0-9a-f]{10}\.redacted\.invalid:5000\/team\/cluster-autoscaler:v1\.32\.1$/);
    expect(out.containers[1].image).toBe('registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1');
  });

  it('replaces IPv6 addresses and EKS endpoint ids, and IPs inside longer text', () => {
    const r = new Redactor(SALT);
    expect(r.redactString('2600:1f18:4a3:6b00::5')).toMatch(/^fd[0-9a-f]{2}(:[0-9a-f]{4}){7}$/);
    expect(r.redactString('https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com')).toMatch(
      /^https:\/\/[0-9A-F]{32}\.gr7\.us-east-1\.eks\.amazonaws\.com$/,
    );
    expect(r.redactString('https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com')).not.toContain(
      '0123456789ABCDEF0123456789ABCDEF',
    );
    const line = r.redactString('Node ip-10-0-27-211.ec2.internal status is now: NodeReady (podCIDR 10.0.27.0/24)');
    expect(line).toMatch(/^Node ip-10-\d+-\d+-\d+\.ec2\.internal status is now: NodeReady \(podCIDR 10\.\d+\.\d+\.\d+\/24\)$/);
    expect(line).not.toContain('10-0-27-211');
  });

  it('learns node names that are not EC2 DNS names and replaces them as whole values and inside text', () => {
    const r = new Redactor(SALT);
    const node = { metadata: { name: 'worker-17.corp.example.com' } } as Node;
    const plain = { metadata: { name: 'gpu' } } as Node;
    const pod = { metadata: { name: 'p' }, spec: { nodeName: 'worker-17.corp.example.com', containers: [] } } as Pod;
    r.learn({ nodes: [node, plain], pods: [pod] });
    const host = r.redactString('worker-17.corp.example.com');
    expect(host).toMatch(/^node-[0-9a-f]{10}$/);
    expect(r.redactString('Node worker-17.corp.example.com status is now: NodeReady')).toBe(
      `Node ${host} status is now: NodeReady`,
    );
    // a plain word is only replaced as a whole value, never inside prose
    expect(r.redactString('gpu')).toMatch(/^node-[0-9a-f]{10}$/);
    expect(r.redactString('Insufficient nvidia.com/gpu')).toBe('Insufficient nvidia.com/gpu');
  });

  it('never gives two IPv4 addresses the same pseudonym, even thousands of them (24 bits collide otherwise)', () => {
    const r = new Redactor(SALT);
    const seen = new Map<string, string>();
    for (let i = 0; i < 8_000; i++) {
      const ip = `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
      const p = r.redactString(ip);
      expect(seen.get(p) ?? ip).toBe(ip);
      seen.set(p, ip);
    }
    expect(seen.size).toBe(8_000);
    expect(r.mapping().filter((e) => e.category === 'ipv4')).toHaveLength(8_000);
  });

  it('redacts every string of a value and leaves keys, numbers and booleans alone', () => {
    const r = new Redactor(SALT);
    const v = { '10.0.0.9': 'x', hostIP: '10.0.0.9', port: 10250, ready: true, list: ['10.0.0.9'] };
    const out = r.redactValue(v);
    expect(Object.keys(out)).toEqual(Object.keys(v));
    expect(out.port).toBe(10250);
    expect(out.ready).toBe(true);
    expect(out.hostIP).toBe(out.list[0]);
    expect(out.hostIP).not.toBe('10.0.0.9');
    expect(v.hostIP).toBe('10.0.0.9');
  });
});
