import { describe, expect, it } from 'vitest';
import { podWorkload } from '../../../../src/memory/pod-workload.js';

describe('podWorkload', () => {
  it('names the Deployment, CronJob, DaemonSet or StatefulSet a pod belongs to', () => {
    expect(podWorkload('checkout-7d9f8b6c4-x2kqp')).toBe('checkout');
    expect(podWorkload('order-service-5c6b7d8f9-abcde'.replace('abcde', 'bcdfg'))).toBe('order-service');
    expect(podWorkload('invoice-export-28913760-q7vzt')).toBe('invoice-export');
    expect(podWorkload('fluent-bit-zx9qk')).toBe('fluent-bit');
    expect(podWorkload('postgres-orders-0')).toBe('postgres-orders');
    expect(podWorkload('indexer-12')).toBe('indexer');
  });

  it('names none for a name of no such form (a static pod, a word that is not a hash)', () => {
    expect(podWorkload('kube-apiserver-ip-10-0-1-2.ec2.internal')).toBeUndefined();
    expect(podWorkload('checkout')).toBeUndefined();
    // Vowels and 0, 1, 3 are not in Kubernetes' alphabet: "-hello" and "-10310" are no suffix.
    expect(podWorkload('web-hello')).toBeUndefined();
    expect(podWorkload('web-10310')).toBeUndefined();
  });
});
