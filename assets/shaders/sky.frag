#version 330 core
in float v_height;
uniform vec3 u_top;
uniform vec3 u_bottom;
out vec4 frag;
void main() { frag = vec4(mix(u_bottom, u_top, clamp(v_height, 0.0, 1.0)), 1.0); }
