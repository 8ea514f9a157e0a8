package inspect

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotCapacity draws Ready pods and available replicas over the steps of a preview.
func PlotCapacity(pv *Preview, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("update of %s/%s", pv.Namespace, pv.Name)
	p.X.Label.Text = "step"
	p.Y.Label.Text = "capacity"
	ready := make(plotter.XYs, 0, len(pv.Steps)+1)
	avail := make(plotter.XYs, 0, len(pv.Steps)+1)
	ready = append(ready, plotter.XY{X: 0, Y: float64(pv.StartPods)})
	if len(pv.Steps) > 0 {
		avail = append(avail, plotter.XY{X: 0, Y: float64(pv.Steps[0].Desired)})
	}
	for i, s := range pv.Steps {
		ready = append(ready, plotter.XY{X: float64(i + 1), Y: float64(s.ReadyPods)})
		avail = append(avail, plotter.XY{X: float64(i + 1), Y: float64(s.Available)})
	}
	lr, err := plotter.NewLine(ready)
	if err != nil {
		return err
	}
	la, err := plotter.NewLine(avail)
	if err != nil {
		return err
	}
	la.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(lr, la, plotter.NewGrid())
	p.Legend.Add("Ready pods", lr)
	p.Legend.Add("available replicas", la)
	p.Legend.Top = true
	if err := p.Save(8*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
