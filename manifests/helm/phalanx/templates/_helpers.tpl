{{/* The plugins a profile may enable (pkg/scheduler registers them). */}}
{{- define "phalanx.knownPlugins" -}}PodGang PodGroup WorkloadPodGroup{{- end -}}

{{/* Labels of every object; the selector label is the one the kustomize manifests use. */}}
{{- define "phalanx.labels" -}}
app.kubernetes.io/name: phalanx-scheduler
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "phalanx.full" -}}{{ eq .Values.mode "full" }}{{- end -}}

{{/* The profiles in force: .Values.profiles, or the mode's default. */}}
{{- define "phalanx.profiles" -}}
{{- if .Values.profiles -}}
{{ toYaml .Values.profiles }}
{{- else if eq .Values.mode "full" -}}
- {schedulerName: phalanx-scheduler, plugins: [PodGang, PodGroup, WorkloadPodGroup]}
{{- else -}}
- {schedulerName: phalanx-scheduler, plugins: [PodGang]}
- {schedulerName: lpx-scheduler, plugins: [PodGang]}
{{- end -}}
{{- end -}}

{{/*
phalanx.validate fails the install with a message naming the value and the reason.
*/}}
{{- define "phalanx.validate" -}}
{{- $v := .Values -}}
{{- if not (has $v.mode (list "full" "schedulerOnly")) -}}
{{- fail (printf "mode: must be \"full\" (scheduler, controller, webhooks, CRDs) or \"schedulerOnly\" (the scheduler beside Grove's operator), got %q: with neither, nothing would schedule" (toString $v.mode)) -}}
{{- end -}}
{{- if not (regexMatch "^-?[0-9]+$" (toString $v.replicas)) -}}
{{- fail (printf "replicas: must be a whole number, got %q" (toString $v.replicas)) -}}
{{- end -}}
{{- if lt (int $v.replicas) 1 -}}
{{- if $v.leaderElection.enabled -}}
{{- fail (printf "replicas: %v with leaderElection.enabled: no replica would hold the lease, so nothing would schedule; use 1 or more" $v.replicas) -}}
{{- else -}}
{{- fail (printf "replicas: %v: nothing would schedule; use 1 (or 2 or more with leaderElection.enabled)" $v.replicas) -}}
{{- end -}}
{{- end -}}
{{- if and (gt (int $v.replicas) 1) (not $v.leaderElection.enabled) -}}
{{- fail (printf "replicas: %v without leaderElection.enabled: every replica would schedule and reconcile at once; enable leader election or use 1 replica" $v.replicas) -}}
{{- end -}}
{{- $known := splitList " " (include "phalanx.knownPlugins" .) -}}
{{- $names := dict -}}
{{- range $i, $p := (include "phalanx.profiles" . | fromYamlArray) -}}
{{- if not $p.schedulerName -}}
{{- fail (printf "profiles[%d].schedulerName: must be set" $i) -}}
{{- end -}}
{{- if hasKey $names $p.schedulerName -}}
{{- fail (printf "profiles[%d].schedulerName: %q is used by two profiles" $i $p.schedulerName) -}}
{{- end -}}
{{- $_ := set $names $p.schedulerName true -}}
{{- if not $p.plugins -}}
{{- fail (printf "profiles[%d].plugins: must name at least one of %s" $i (join ", " $known)) -}}
{{- end -}}
{{- range $p.plugins -}}
{{- if not (has . $known) -}}
{{- fail (printf "profiles[%d].plugins: unknown plugin %q (known: %s)" $i . (join ", " $known)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $_ := $v.pluginArgs -}}
{{- if not (has $name $known) -}}
{{- fail (printf "pluginArgs.%s: unknown plugin (known: %s)" $name (join ", " $known)) -}}
{{- end -}}
{{- end -}}
{{- if and $v.metrics.serviceMonitor.enabled (not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor")) -}}
{{- fail "metrics.serviceMonitor.enabled: the cluster does not serve monitoring.coreos.com/v1 ServiceMonitor (install the Prometheus operator first, or leave it false)" -}}
{{- end -}}
{{- if and $v.metrics.serviceMonitor.enabled (not $v.metrics.service.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled: needs metrics.service.enabled (the ServiceMonitor selects that Service)" -}}
{{- end -}}
{{- if not (has $v.webhook.failurePolicy (list "Fail" "Ignore")) -}}
{{- fail (printf "webhook.failurePolicy: must be Fail or Ignore, got %q" (toString $v.webhook.failurePolicy)) -}}
{{- end -}}
{{- end -}}
