#!/usr/bin/env python3
"""Writes Moreau's robot models and their meshes (issue 5), from nothing but
the standard library:

  scenes/models/arm/arm.urdf           6-DOF arm with a two-finger gripper
  scenes/models/arm/meshes/*           link meshes as OBJ, binary STL, ASCII STL,
                                       Collada, glTF (.gltf and .glb)
  scenes/models/gripper/gripper.urdf   the same two-finger gripper alone
  scenes/models/humanoid/humanoid.urdf 13 bodies, 12 joints, primitive shapes
  tests/import/data/box.*              one box (half extents 0.5 0.25 0.1) in every
                                       format, for the mesh loader's test

Inertias are computed here from the shapes (solid boxes, cylinders, spheres,
prisms with uniform density), so the URDF numbers are consistent.

Usage: python3 scenes/models/tools/gen_models.py   (from the repository root)
"""
import base64
import json
import math
import os
import struct

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def out(rel):
    p = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


# ---- solids as (vertices, faces); faces counter-clockwise seen from outside ----

def box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
         (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    quads = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return v, quads


def prism(n, r, z0, z1, phase=0.0):
    """regular n-gon prism of circumradius r along z"""
    v = []
    for z in (z0, z1):
        for i in range(n):
            a = phase + 2 * math.pi * i / n
            v.append((r * math.cos(a), r * math.sin(a), z))
    faces = [tuple(range(n - 1, -1, -1)), tuple(range(n, 2 * n))]
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j, n + i))
    return v, faces


def triangles(faces):
    t = []
    for f in faces:
        for k in range(1, len(f) - 1):
            t.append((f[0], f[k], f[k + 1]))
    return t


def fmt(x):
    s = repr(round(x, 12))
    return s[:-2] if s.endswith(".0") else s


# ---- writers ----

def write_obj(path, v, faces, name):
    with open(path, "w") as f:
        f.write("# %s, written by scenes/models/tools/gen_models.py\n" % name)
        f.write("o %s\n" % name)
        for p in v:
            f.write("v %s %s %s\n" % tuple(fmt(c) for c in p))
        for fc in faces:  # polygons as written: the loader triangulates
            f.write("f %s\n" % " ".join(str(i + 1) for i in fc))


def normal(a, b, c):
    u = [b[i] - a[i] for i in range(3)]
    w = [c[i] - a[i] for i in range(3)]
    n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
    l = math.sqrt(sum(x * x for x in n)) or 1.0
    return tuple(x / l for x in n)


def write_stl_binary(path, v, faces, name):
    tris = triangles(faces)
    header = ("binary STL %s, gen_models.py" % name).encode().ljust(80, b" ")
    with open(path, "wb") as f:
        f.write(header)
        f.write(struct.pack("<I", len(tris)))
        for a, b, c in tris:
            f.write(struct.pack("<3f", *normal(v[a], v[b], v[c])))
            for i in (a, b, c):
                f.write(struct.pack("<3f", *v[i]))
            f.write(struct.pack("<H", 0))


def write_stl_ascii(path, v, faces, name):
    with open(path, "w") as f:
        f.write("solid %s\n" % name)
        for a, b, c in triangles(faces):
            f.write("  facet normal %s %s %s\n" % tuple(fmt(x) for x in normal(v[a], v[b], v[c])))
            f.write("    outer loop\n")
            for i in (a, b, c):
                f.write("      vertex %s %s %s\n" % tuple(fmt(x) for x in v[i]))
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid %s\n" % name)


def write_dae(path, v, faces, name, offset=(0.0, 0.0, 0.0)):
    """Collada 1.4.1; the vertices are written shifted by -offset and the node
    translates them back by +offset (exercises node transforms)."""
    tris = triangles(faces)
    pos = " ".join(fmt(p[i] - offset[i]) for p in v for i in range(3))
    idx = " ".join(str(i) for t in tris for i in t)
    with open(path, "w") as f:
        f.write("""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>
    <contributor><authoring_tool>gen_models.py</authoring_tool></contributor>
    <unit name="meter" meter="1"/>
    <up_axis>Z_UP</up_axis>
  </asset>
  <library_geometries>
    <geometry id="{n}-mesh" name="{n}">
      <mesh>
        <source id="{n}-positions">
          <float_array id="{n}-positions-array" count="{nf}">{pos}</float_array>
          <technique_common>
            <accessor source="#{n}-positions-array" count="{nv}" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="{n}-vertices"><input semantic="POSITION" source="#{n}-positions"/></vertices>
        <triangles count="{nt}">
          <input semantic="VERTEX" source="#{n}-vertices" offset="0"/>
          <p>{idx}</p>
        </triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene" name="scene">
      <node id="{n}" name="{n}">
        <translate>{tx} {ty} {tz}</translate>
        <instance_geometry url="#{n}-mesh"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
""".format(n=name, nf=3 * len(v), nv=len(v), nt=len(tris), pos=pos, idx=idx,
           tx=fmt(offset[0]), ty=fmt(offset[1]), tz=fmt(offset[2])))


def gltf_parts(v, faces, name, offset):
    tris = triangles(faces)
    shifted = [tuple(p[i] - offset[i] for i in range(3)) for p in v]
    vb = b"".join(struct.pack("<3f", *p) for p in shifted)
    ib = b"".join(struct.pack("<3H", *t) for t in tris)
    pad = (4 - len(ib) % 4) % 4
    binary = vb + ib + b"\0" * pad
    lo = [min(p[i] for p in shifted) for i in range(3)]
    hi = [max(p[i] for p in shifted) for i in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "gen_models.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": name, "mesh": 0, "translation": list(offset)}],
        "meshes": [{"name": name, "primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(v), "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5123, "count": 3 * len(tris), "type": "SCALAR"},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(vb), "target": 34962},
            {"buffer": 0, "byteOffset": len(vb), "byteLength": len(ib), "target": 34963},
        ],
        "buffers": [{"byteLength": len(binary)}],
    }
    return doc, binary


def write_gltf(path, v, faces, name, offset=(0.0, 0.0, 0.0)):
    doc, binary = gltf_parts(v, faces, name, offset)
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(binary).decode()
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def write_glb(path, v, faces, name, offset=(0.0, 0.0, 0.0)):
    doc, binary = gltf_parts(v, faces, name, offset)
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * ((4 - len(js) % 4) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, total))
        f.write(struct.pack("<I4s", len(js), b"JSON") + js)
        f.write(struct.pack("<I4s", len(binary), b"BIN\0") + binary)


# ---- inertia of solids (about the centre of mass, principal axes = x y z) ----

def box_inertia(m, sx, sy, sz):
    return (m * (sy * sy + sz * sz) / 12, m * (sx * sx + sz * sz) / 12, m * (sx * sx + sy * sy) / 12)


def cyl_inertia(m, r, h):  # axis z
    a = m * (3 * r * r + h * h) / 12
    return (a, a, m * r * r / 2)


def sphere_inertia(m, r):
    a = 0.4 * m * r * r
    return (a, a, a)


def inertial(m, com, I, rpy=(0, 0, 0), off=(0, 0, 0)):
    ixx, iyy, izz = I
    ixy, ixz, iyz = off
    return ('    <inertial>\n      <origin xyz="%s %s %s" rpy="%s %s %s"/>\n      <mass value="%s"/>\n'
            '      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>\n    </inertial>\n'
            % tuple(fmt(x) for x in (*com, *rpy, m, ixx, ixy, ixz, iyy, iyz, izz)))


def geom(kind, **a):
    if kind == "box":
        return '<box size="%s %s %s"/>' % tuple(fmt(x) for x in a["size"])
    if kind == "cylinder":
        return '<cylinder radius="%s" length="%s"/>' % (fmt(a["radius"]), fmt(a["length"]))
    if kind == "sphere":
        return '<sphere radius="%s"/>' % fmt(a["radius"])
    return '<mesh filename="%s"/>' % a["filename"]


def visual_collision(g, xyz=(0, 0, 0), rpy=(0, 0, 0), material=None, collision=True):
    o = '<origin xyz="%s %s %s" rpy="%s %s %s"/>' % tuple(fmt(x) for x in (*xyz, *rpy))
    s = "    <visual>\n      %s\n      <geometry>%s</geometry>\n" % (o, g)
    if material:
        s += '      <material name="%s"/>\n' % material
    s += "    </visual>\n"
    if collision:
        s += "    <collision>\n      %s\n      <geometry>%s</geometry>\n    </collision>\n" % (o, g)
    return s


def joint(name, kind, parent, child, xyz, rpy=(0, 0, 0), axis=None, limit=None, damping=None):
    s = '  <joint name="%s" type="%s">\n    <parent link="%s"/>\n    <child link="%s"/>\n' % (name, kind, parent, child)
    s += '    <origin xyz="%s %s %s" rpy="%s %s %s"/>\n' % tuple(fmt(x) for x in (*xyz, *rpy))
    if axis:
        s += '    <axis xyz="%s %s %s"/>\n' % tuple(fmt(x) for x in axis)
    if limit:
        s += '    <limit lower="%s" upper="%s" effort="%s" velocity="%s"/>\n' % tuple(fmt(x) for x in limit)
    if damping is not None:
        s += '    <dynamics damping="%s" friction="0"/>\n' % fmt(damping)
    return s + "  </joint>\n"


MATERIALS = """  <material name="grey"><color rgba="0.6 0.6 0.62 1"/></material>
  <material name="orange"><color rgba="0.95 0.5 0.1 1"/></material>
  <material name="dark"><color rgba="0.2 0.2 0.22 1"/></material>
"""


# ---- the gripper (palm + two prismatic fingers), shared by arm.urdf and gripper.urdf ----

def gripper_links(prefix=""):
    s = '  <link name="%spalm">\n' % prefix
    s += inertial(0.5, (0, 0, 0.02), box_inertia(0.5, 0.16, 0.06, 0.04))
    s += visual_collision(geom("box", size=(0.16, 0.06, 0.04)), (0, 0, 0.02), material="dark")
    s += "  </link>\n"
    for side in ("left", "right"):
        s += '  <link name="%sfinger_%s">\n' % (prefix, side)
        s += inertial(0.1, (0, 0, 0.04), box_inertia(0.1, 0.02, 0.04, 0.08))
        s += visual_collision(geom("box", size=(0.02, 0.04, 0.08)), (0, 0, 0.04), material="grey")
        s += "  </link>\n"
    return s


def gripper_joints(prefix=""):
    # fingers open at zero (x = +-0.06 in the palm frame); positive travel closes them
    s = joint(prefix + "finger_left_joint", "prismatic", prefix + "palm", prefix + "finger_left", (0.06, 0, 0.04),
              axis=(-1, 0, 0), limit=(0, 0.05, 40, 0.1), damping=1.0)
    s += joint(prefix + "finger_right_joint", "prismatic", prefix + "palm", prefix + "finger_right",
               (-0.06, 0, 0.04), axis=(1, 0, 0), limit=(0, 0.05, 40, 0.1), damping=1.0)
    return s


# ---- the arm ----

ARM_MESHES = {
    # name: (solid, writer, file)
    "base": (prism(8, 0.12, 0.0, 0.1, math.pi / 8), write_obj, "base.obj"),
    "link1": (box((-0.06, -0.06, 0.0), (0.06, 0.06, 0.15)), write_stl_binary, "link1.stl"),
    "link2": (box((-0.05, -0.05, 0.0), (0.05, 0.05, 0.4)), write_dae, "link2.dae"),
    "link3": (box((-0.04, -0.04, 0.0), (0.04, 0.04, 0.35)), write_stl_ascii, "link3_ascii.stl"),
    "link4": (prism(6, 0.05, 0.0, 0.1), write_gltf, "link4.gltf"),
    "link5": (box((-0.04, -0.04, 0.0), (0.04, 0.04, 0.08)), write_glb, "link5.glb"),
}


def write_arm():
    for name, ((v, faces), writer, fn) in ARM_MESHES.items():
        if writer in (write_dae, write_gltf, write_glb):
            writer(out("scenes/models/arm/meshes/" + fn), v, faces, name, offset=(0.0, 0.0, 0.05))
        else:
            writer(out("scenes/models/arm/meshes/" + fn), v, faces, name)
    hexa_r = 0.05
    s = '<?xml version="1.0"?>\n<!-- 6-DOF arm with a two-finger gripper; written by scenes/models/tools/gen_models.py -->\n'
    s += '<robot name="arm">\n' + MATERIALS
    # base: static in the usual fixed-base load (its collision mesh is then a triangle mesh)
    s += '  <link name="base_link">\n'
    s += inertial(5.0, (0, 0, 0.05), cyl_inertia(5.0, 0.12, 0.1))
    s += visual_collision(geom("mesh", filename="package://arm/meshes/base.obj"), material="dark")
    s += "  </link>\n"
    links = [
        # name, mass, com, I (principal), inertial rpy, mesh, material
        ("link1", 3.0, (0, 0, 0.075), box_inertia(3.0, 0.12, 0.12, 0.15), (0, 0, 0), "meshes/link1.stl", "orange"),
        ("link2", 4.0, (0, 0, 0.2), box_inertia(4.0, 0.1, 0.1, 0.4), (0, 0, 0), "meshes/link2.dae", "orange"),
        # forearm: inertial frame turned 0.5 rad about z and its principal moments differ in x and y,
        # so the link-frame tensor has off-diagonal terms (the loader must rotate it)
        ("link3", 2.5, (0.01, 0, 0.175), (0.03, 0.02, 0.004), (0, 0, 0.5), "meshes/link3_ascii.stl", "grey"),
        ("link4", 1.0, (0, 0, 0.05), cyl_inertia(1.0, hexa_r, 0.1), (0, 0, 0), "meshes/link4.gltf", "orange"),
        ("link5", 0.8, (0, 0, 0.04), box_inertia(0.8, 0.08, 0.08, 0.08), (0, 0, 0), "package://arm/meshes/link5.glb",
         "grey"),
    ]
    for name, m, com, I, rpy, mesh, mat in links:
        s += '  <link name="%s">\n' % name
        s += inertial(m, com, I, rpy)
        s += visual_collision(geom("mesh", filename=mesh), material=mat)
        s += "  </link>\n"
    s += '  <link name="link6">\n'
    s += inertial(0.3, (0, 0, 0.01), cyl_inertia(0.3, 0.04, 0.02))
    s += visual_collision(geom("cylinder", radius=0.04, length=0.02), (0, 0, 0.01), material="grey")
    s += "  </link>\n"
    s += gripper_links()
    s += '  <link name="tool0"/>\n'  # a massless frame at the fingertips
    pi = math.pi
    s += joint("shoulder_pan", "revolute", "base_link", "link1", (0, 0, 0.1), axis=(0, 0, 1),
               limit=(-3.0, 3.0, 150, 2.0), damping=0.5)
    s += joint("shoulder_lift", "revolute", "link1", "link2", (0, 0, 0.15), axis=(0, 1, 0),
               limit=(-2.0, 2.0, 150, 2.0), damping=0.5)
    s += joint("elbow", "revolute", "link2", "link3", (0, 0, 0.4), axis=(0, 1, 0),
               limit=(-2.5, 2.5, 100, 2.5), damping=0.5)
    s += joint("wrist_1", "revolute", "link3", "link4", (0, 0, 0.35), axis=(0, 0, 1),
               limit=(-3.0, 3.0, 30, 3.0), damping=0.1)
    s += joint("wrist_2", "revolute", "link4", "link5", (0, 0, 0.1), axis=(0, 1, 0),
               limit=(-2.0, 2.0, 30, 3.0), damping=0.1)
    s += joint("wrist_3", "continuous", "link5", "link6", (0, 0, 0.08), axis=(0, 0, 1), limit=(0, 0, 10, 4.0),
               damping=0.05)
    # the gripper turned a quarter turn about z: its fingers close along the flange's y
    s += joint("gripper_mount", "fixed", "link6", "palm", (0, 0, 0.02), rpy=(0, 0, pi / 2))
    s += gripper_joints()
    s += joint("tool_frame", "fixed", "palm", "tool0", (0, 0, 0.12))
    s += "</robot>\n"
    with open(out("scenes/models/arm/arm.urdf"), "w") as f:
        f.write(s)


def write_gripper():
    s = '<?xml version="1.0"?>\n<!-- parallel two-finger gripper; written by scenes/models/tools/gen_models.py -->\n'
    s += '<robot name="gripper">\n' + MATERIALS + gripper_links() + gripper_joints() + "</robot>\n"
    with open(out("scenes/models/gripper/gripper.urdf"), "w") as f:
        f.write(s)


# ---- the humanoid: 13 bodies, 12 hinges, about 73 kg, standing with its soles at z = 0 ----

def write_humanoid():
    s = '<?xml version="1.0"?>\n<!-- humanoid of 13 bodies and 12 joints; written by scenes/models/tools/gen_models.py.\n'
    s += '     The root (pelvis) frame is 0.95 m above the soles: load it floating at base z = 0.95. -->\n'
    s += '<robot name="humanoid">\n' + MATERIALS

    def link_box(name, m, size, at, mat="grey"):
        r = '  <link name="%s">\n' % name
        r += inertial(m, at, box_inertia(m, *size))
        r += visual_collision(geom("box", size=size), at, material=mat)
        return r + "  </link>\n"

    def link_cyl(name, m, radius, length, at, mat="orange"):
        r = '  <link name="%s">\n' % name
        r += inertial(m, at, cyl_inertia(m, radius, length))
        r += visual_collision(geom("cylinder", radius=radius, length=length), at, material=mat)
        return r + "  </link>\n"

    def link_sphere(name, m, radius, at, mat="grey"):
        r = '  <link name="%s">\n' % name
        r += inertial(m, at, sphere_inertia(m, radius))
        r += visual_collision(geom("sphere", radius=radius), at, material=mat)
        return r + "  </link>\n"

    s += link_box("pelvis", 10.0, (0.3, 0.2, 0.15), (0, 0, 0))
    s += link_box("torso", 25.0, (0.36, 0.22, 0.42), (0, 0, 0.23))
    s += link_sphere("head", 5.0, 0.11, (0, 0, 0.13))
    for side, y in (("left", 1), ("right", -1)):
        s += link_cyl("upper_arm_" + side, 2.5, 0.045, 0.28, (0, 0, -0.14))
        s += link_cyl("lower_arm_" + side, 1.5, 0.04, 0.26, (0, 0, -0.13))
        s += link_cyl("thigh_" + side, 8.0, 0.07, 0.4, (0, 0, -0.2))
        s += link_cyl("shin_" + side, 3.5, 0.055, 0.4, (0, 0, -0.2))
        s += link_box("foot_" + side, 1.2, (0.22, 0.09, 0.07), (0.04, 0, -0.04), "dark")
    s += joint("abdomen", "revolute", "pelvis", "torso", (0, 0, 0.075), axis=(0, 0, 1), limit=(-0.8, 0.8, 200, 4),
               damping=1)
    s += joint("neck", "revolute", "torso", "head", (0, 0, 0.44), axis=(0, 1, 0), limit=(-0.7, 0.7, 30, 4),
               damping=0.2)
    for side, y in (("left", 1), ("right", -1)):
        s += joint("shoulder_" + side, "revolute", "torso", "upper_arm_" + side, (0, y * 0.23, 0.38),
                   axis=(0, 1, 0), limit=(-3.0, 1.0, 60, 6), damping=0.3)
        s += joint("elbow_" + side, "revolute", "upper_arm_" + side, "lower_arm_" + side, (0, 0, -0.28),
                   axis=(0, 1, 0), limit=(-2.5, 0.0, 40, 6), damping=0.2)
        s += joint("hip_" + side, "revolute", "pelvis", "thigh_" + side, (0, y * 0.1, -0.075), axis=(0, 1, 0),
                   limit=(-2.0, 0.8, 250, 6), damping=1)
        s += joint("knee_" + side, "revolute", "thigh_" + side, "shin_" + side, (0, 0, -0.4), axis=(0, 1, 0),
                   limit=(0.0, 2.5, 200, 6), damping=1)
        s += joint("ankle_" + side, "revolute", "shin_" + side, "foot_" + side, (0, 0, -0.4), axis=(0, 1, 0),
                   limit=(-0.8, 0.8, 100, 6), damping=0.5)
    s += "</robot>\n"
    with open(out("scenes/models/humanoid/humanoid.urdf"), "w") as f:
        f.write(s)


# ---- the test box in every format ----

def write_test_boxes():
    v, faces = box((-0.5, -0.25, -0.1), (0.5, 0.25, 0.1))
    d = "tests/import/data/"
    write_obj(out(d + "box.obj"), v, faces, "box")
    write_stl_binary(out(d + "box_binary.stl"), v, faces, "box")
    write_stl_ascii(out(d + "box_ascii.stl"), v, faces, "box")
    write_dae(out(d + "box.dae"), v, faces, "box", offset=(0.25, -0.5, 1.0))
    write_gltf(out(d + "box.gltf"), v, faces, "box", offset=(0.25, -0.5, 1.0))
    write_glb(out(d + "box.glb"), v, faces, "box", offset=(0.25, -0.5, 1.0))


if __name__ == "__main__":
    write_arm()
    write_gripper()
    write_humanoid()
    write_test_boxes()
