package config

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"
	kubeconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
)

// The same Go types serve as the internal and the v1 version: there is nothing to convert,
// and the scheme then copies them between versions as they are.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(kubeconfig.SchemeGroupVersion, &PodGangArgs{}, &PodGroupArgs{}, &WorkloadPodGroupArgs{})
	s.AddKnownTypes(configv1.SchemeGroupVersion, &PodGangArgs{}, &PodGroupArgs{}, &WorkloadPodGroupArgs{})
	s.AddTypeDefaultingFunc(&PodGangArgs{}, func(obj any) { SetDefaultsPodGangArgs(obj.(*PodGangArgs)) })
	s.AddTypeDefaultingFunc(&PodGroupArgs{}, func(obj any) { SetDefaultsPodGroupArgs(obj.(*PodGroupArgs)) })
	s.AddTypeDefaultingFunc(&WorkloadPodGroupArgs{}, func(obj any) { SetDefaultsWorkloadPodGroupArgs(obj.(*WorkloadPodGroupArgs)) })
	return nil
}

func init() {
	// The kube-scheduler builds its plugin-argument conversion scheme lazily from these
	// builders (defaulting args and converting them to the internal version); its decoding
	// scheme was built at init, so the types are added to it directly.
	configv1.SchemeBuilder.Register(addKnownTypes)
	kubeconfig.SchemeBuilder.Register(addKnownTypes)
	utilruntime.Must(addKnownTypes(scheme.Scheme))
}
