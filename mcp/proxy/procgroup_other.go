//go:build !unix

package proxy

import "os/exec"

func ownProcessGroup(cmd *exec.Cmd) {}

func signalProcessGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
